#!/usr/bin/python3
"""ci/ref_coverage.py's verdict on a tiny fake input (issue 19): a three-branch-line ref/fake.c
under a temporary root, its gcov -b -c report written here and read by parse_gcov, and an
exceptions file. An exception that quotes its line's text passes; the same exception after a
line is inserted above it (gcov's report shifted with the source, so another untaken branch
now sits on the excepted line) fails as moved, naming it; an exception on a line whose branches
are all taken, and a class that excepts nothing, fail as stale; an uncovered branch passes
under a ceiling of 1 and fails over a ceiling of 0 (the figure, 75%, above the floor); a malformed line exception is
refused. Exit 0 when every check holds (ctest ref_coverage_fixture)."""
import contextlib
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ci"))
import ref_coverage  # noqa: E402

# (source line, taken count per branch): n > 99 is never true, n > 0 both ways
FAKE = [("int fake(int n)", []), ("{", []), ("    if (n > 99)", [0, 5]),
        ("        return -2;", []), ("    if (n > 0)", [3, 2]), ("        return n;", []),
        ("    return 0;", []), ("}", [])]
# a line inserted above line 3 whose branch no case takes either
SHIFTED = FAKE[:2] + [("    if (n < -99)", [0, 5])] + FAKE[2:]
EXCEPTION = "ref/fake.c:3 `if (n > 99)` fixture: no case has n > 99\n"


def verdict(root, program, exceptions, most_untaken=None):
    """(exit status, printed text) of ref_coverage.judge over program [(text, counts)] as
    ref/fake.c under root, with the exceptions file's text."""
    os.makedirs(os.path.join(root, "ref"), exist_ok=True)
    with open(os.path.join(root, "ref", "fake.c"), "w") as f:
        f.write("".join(text + "\n" for text, _ in program))
    report = os.path.join(root, "fake.c.gcov")
    with open(report, "w") as f:  # gcov -b -c's format
        f.write("        -:    0:Source:ref/fake.c\n")
        for n, (text, counts) in enumerate(program, 1):
            f.write(f"        1:{n:5d}:{text}\n")
            f.writelines(f"branch {b:2d} taken {c}\n" for b, c in enumerate(counts))
    with open(os.path.join(root, "exceptions.txt"), "w") as f:
        f.write(exceptions)
    branches, source = {}, {}
    ref_coverage.parse_gcov(report, "fake.c", branches, source)
    exc, classes = ref_coverage.read_exceptions(os.path.join(root, "exceptions.txt"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = ref_coverage.judge(branches, source, {}, None, exc, classes, 50.0, root=root,
                                 most_untaken=most_untaken)
    return rc, out.getvalue()


def check(what, ok, text):
    if not ok:
        print(f"ref_coverage_fixture: {what}: FAILED\n{text}")
        sys.exit(1)
    print(f"ref_coverage_fixture: {what}: ok")


def main():
    with tempfile.TemporaryDirectory() as root:
        rc, text = verdict(root, FAKE, EXCEPTION)
        check("an exception quoting its line passes", rc == 0 and "figure: 100.00%" in text
              and "moved" not in text and "stale" not in text, text)
        rc, text = verdict(root, FAKE, "", most_untaken=1)
        check("one uncovered branch under a ceiling of 1 passes", rc == 0
              and "uncovered: 1 branches" in text, text)
        rc, text = verdict(root, FAKE, "", most_untaken=0)
        check("one uncovered branch over a ceiling of 0 fails", rc == 1
              and "figure: 75.00%" in text and "uncovered: 1 branches" in text, text)
        rc, text = verdict(root, SHIFTED, EXCEPTION)
        check("the same exception after a line inserted above it fails as moved", rc == 1
              and "moved exception: ref/fake.c:3 does not read `if (n > 99)`" in text
              and "stale" not in text, text)
        rc, text = verdict(root, FAKE, EXCEPTION + "ref/fake.c:5 `if (n > 0)` both taken\n")
        check("an exception on a line with every branch taken fails as stale", rc == 1
              and "stale exception (no untaken branch there): ref/fake.c:5" in text
              and "moved" not in text, text)
        rc, text = verdict(root, FAKE, EXCEPTION + "unit /never_matches/ no such line\n")
        check("a class that excepts no branch fails as stale", rc == 1
              and "stale exception class (excepts no branch): /never_matches/" in text, text)
        try:
            verdict(root, FAKE, "ref/fake.c:3 if (n > 99) the text is not quoted\n")
            check("a malformed line exception is refused", False, "accepted")
        except ValueError as e:
            check("a malformed line exception is refused", "malformed exception" in str(e), str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
