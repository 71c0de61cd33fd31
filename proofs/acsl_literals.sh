#!/usr/bin/env bash
# Fails if an ACSL annotation (/*@ ... */ or //@, not its // comments) in ref/, include/, proofs/ or fast/ has a real
# literal with an integer mantissa and a positive exponent (1e6, 2E+3): Frama-C 25 reads those
# as 1.6 and 2.3 (proofs/NOTES.md, "ACSL real literals in Frama-C 25"). Called by proofs/prove.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(find ref include proofs fast \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print0 |
      xargs -0 perl -0777 -ne '
          while (m{(/\*@.*?\*/|//@[^\n]*)}gs) {
              my ($a, $at) = ($1, $-[1]);
              $a =~ s{^//@}{   };                      # the comments inside an annotation
              $a =~ s{//[^\n]*}{" " x length($&)}ge;   # are not read (same length: lines)
              while ($a =~ /(?<![\w.])(\d+[eE]\+?\d+)/g) {
                  my $line = 1 + (substr($_, 0, $at + $-[1]) =~ tr/\n//);
                  print "$ARGV:$line: $1\n";
              }
          }')
if [ -n "$bad" ]; then
    echo "$bad"
    echo "acsl_literals.sh: write these with a decimal point (1.0e6): Frama-C 25 misreads them" >&2
    exit 1
fi
echo "acsl_literals.sh: no misread real literal in the annotations"
