"""Reads Gappa's output for proofs/prove (the gappa parts only: this module is hashed into their
cache keys, not into those of the Frama-C parts, which proofs/observe.py serves).

Gappa writes its warnings and, for every goal stated as `NAME in ?`, the enclosure it proved
("Results:" then one line per goal) on stderr, and exits non-zero when a goal is not proved.
An enclosure is written as dyadic numbers `MbE` (M * 2^E, exact), then a decimal gloss in
braces, which is ignored here.
"""

import math
import re
from fractions import Fraction

NUM = r"(-?\d+(?:b-?\d+)?)"
RESULT = re.compile(r"^\s+(\S+) in \[" + NUM + r" \{[^}]*\}, " + NUM + r" \{[^}]*\}\]\s*$")
# (a bound that Gappa prints exactly, e.g. "[0, 0]", has no decimal gloss)
RESULT_BARE = re.compile(r"^\s+(\S+) in \[" + NUM + ", " + NUM + r"\]\s*$")


def dyadic(text):
    """The exact value of Gappa's `MbE` (or integer) notation."""
    m, _, e = text.partition("b")
    return Fraction(int(m)) * (Fraction(2) ** int(e or 0))


def results(text):
    """{goal: (lo, hi)} as exact fractions, from the "Results:" block."""
    out = {}
    for line in text.splitlines():
        r = RESULT.match(line) or RESULT_BARE.match(line)
        if r:
            out[r.group(1)] = (dyadic(r.group(2)), dyadic(r.group(3)))
    return out


def warnings(text):
    """Every warning line. A rewriting hint whose denominator Gappa only assumed nonzero is
    unsound where it is zero, so any such warning fails the part (hints carry { e <> 0 })."""
    return [l.strip() for l in text.splitlines() if l.startswith("Warning")]


def magnitude_up(lo, hi):
    """max(|lo|, |hi|) as the smallest binary64 not below it (for the cache and the tests)."""
    m = max(abs(lo), abs(hi))
    f = float(m)
    return f if Fraction(f) >= m else math.nextafter(f, math.inf)
