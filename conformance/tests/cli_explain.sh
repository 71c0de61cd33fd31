#!/bin/sh
# Issue 20, item 5: `optcert explain RULE-ID` prints the rule's bullet from its spec page, every
# ref/ line citing it (file:line), every vector case whose specRules lists it (family, tcId,
# comment) and every test line citing it; an unknown rule or no rule exits 2. `optcert trace
# --locations` adds where each rule is implemented. The expectations are read from the tree.
#   cli_explain.sh OPTCERT_BINARY SOURCE_DIR RULE-ID
set -eu
optcert=$1
src=$2
id=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; cat "$tmp/out"; exit 1; }
has() { grep -qF -- "$1" "$tmp/out" || fail "missing: $1"; }

"$optcert" explain "$id" --root "$src" >"$tmp/out" || fail "optcert explain $id: status $?"
# the definition: its page and line, then the bullet and its indented continuation lines
def=$(grep -n -- "^- \*\*$id\*\*" "$src"/spec/*.md | head -n 1)
page=$(basename "${def%%:*}")
line=$(echo "$def" | cut -d: -f2)
head -n 1 "$tmp/out" | grep -qxF "$id  spec/$page:$line" || fail "no definition header spec/$page:$line"
awk -v l="$line" 'NR == l || (NR > l && go && /^[ \t]+[^ \t]/) { go = 1; print; next } NR > l { exit }' \
    "$src/spec/$page" >"$tmp/bullet"
[ -s "$tmp/bullet" ] || fail "no bullet read"
while IFS= read -r b; do has "  $b"; done <"$tmp/bullet"

# every line of ref/ and of the tests that cites the rule, as file:line
(cd "$src" && grep -nw -- "$id" ref/*.c conformance/tests/*.c) >"$tmp/cites" || true
grep -q "^ref/" "$tmp/cites" || fail "$id is cited by no ref/ line: choose another rule"
grep -q "^conformance/tests/" "$tmp/cites" || fail "$id is cited by no test: choose another rule"
cut -d: -f1,2 "$tmp/cites" | while IFS= read -r at; do has "  $at: "; done

# exactly the vector cases listing the rule
/usr/bin/python3 - "$src/vectors" "$id" >"$tmp/want" <<'PY'
import json, os, sys
root, rule = sys.argv[1], sys.argv[2]
for fam in sorted(os.listdir(root)):
    path = os.path.join(root, fam, fam + ".json")
    if not os.path.isfile(path):
        continue
    for g in json.load(open(path)).get("testGroups", []):
        for c in g["tests"]:
            if rule in c.get("specRules", []):
                print(fam, c["tcId"], c.get("comment", ""))
PY
[ -s "$tmp/want" ] || fail "$id is listed by no vector case: choose another rule"
sed -n '/^exercised by vector cases/,/^$/s/^  \([^ ]*\) *tcId \([0-9]*\) *\(.*\)$/\1 \2 \3/p' \
    "$tmp/out" | sort >"$tmp/got"
sort "$tmp/want" >"$tmp/want.sorted"
cmp -s "$tmp/got" "$tmp/want.sorted" || { diff "$tmp/want.sorted" "$tmp/got" | head; fail "vector cases differ"; }
grep -qx "exercised by vector cases ($(wc -l <"$tmp/want" | tr -d ' ') cases: family, tcId, comment):" \
    "$tmp/out" || fail "vector case count"

# trace --locations: the rule's first implementing line; the default table has no such column
"$optcert" trace --root "$src" --locations >"$tmp/out" || fail "optcert trace --locations: status $?"
first=$(cd "$src" && grep -nw -- "$id" ref/*.c | head -n 1 | cut -d: -f1,2)
grep -q "^$id .* $first\$" "$tmp/out" || fail "trace --locations: no $first for $id"
"$optcert" trace --root "$src" >"$tmp/out" || fail "optcert trace: status $?"
! grep -q " $first" "$tmp/out" || fail "the default trace table shows locations"

# bad usage: an unknown rule (the rules of its prefix are suggested), no rule
set +e
"$optcert" explain "$id-9" --root "$src" >"$tmp/out" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown rule: rc $rc"
{ grep -q "no rule $id-9" "$tmp/out" && grep -qw -- "$id" "$tmp/out"; } || fail "unknown rule: no suggestion"
set +e
"$optcert" explain >"$tmp/out" 2>&1
rc=$?
set -e
{ [ $rc -eq 2 ] && grep -q "explain needs a RULE-ID" "$tmp/out" && grep -q "^usage:" "$tmp/out"; } ||
    fail "no rule: rc $rc"
echo "optcert explain $id: definition, $(wc -l <"$tmp/cites" | tr -d ' ') cited lines, $(wc -l <"$tmp/want" | tr -d ' ') vector cases"
