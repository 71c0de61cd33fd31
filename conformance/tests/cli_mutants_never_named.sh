#!/bin/sh
# VEC-DIAG-1: `optcert mutants` fails a catalogued mistake that the diagnosis never names, even
# when it is killed. On adafactor-paper's tcIds 5 and 15 alone, no-normaliser's failures are
# reproduced within bound by normalise-by-sum, which the catalogue lists first (both leave the
# factored estimate off by a constant factor there), so the diagnosis says "behaves like
# normalise-by-sum" in both: no-normaliser is killed by two cases, never named, and the run
# exits 1 with the verdict NEVER NAMED on its line.
#   cli_mutants_never_named.sh OPTCERT_BINARY
set -eu
optcert=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/vectors/adafactor-paper" "$tmp/"
/usr/bin/python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
for g in d['testGroups']:
    g['tests'] = [t for t in g['tests'] if t['tcId'] in (5, 15)]
d['testGroups'] = [g for g in d['testGroups'] if g['tests']]
d['numberOfTests'] = sum(len(g['tests']) for g in d['testGroups'])
json.dump(d, open(sys.argv[1], 'w'))" "$tmp/adafactor-paper/adafactor-paper.json"
set +e
"$optcert" mutants --vectors "$tmp" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
line() { grep -E "^$1 " "$tmp/out" || true; }
fail() { echo "cli_mutants_never_named: $*"; cat "$tmp/out" "$tmp/err"; exit 1; }
[ $rc -eq 1 ] || fail "expected exit 1, got $rc"
line no-normaliser | grep -Eq ' 2 +[0-9.e+]+ +NEVER NAMED$' ||
    fail "no-normaliser is not 'NEVER NAMED' after two kills: $(line no-normaliser)"
line normalise-by-sum | grep -Eq ' killed$' ||
    fail "normalise-by-sum is not 'killed': $(line normalise-by-sum)"
echo "cli_mutants_never_named: no-normaliser killed twice and never named: exit 1, NEVER NAMED"
