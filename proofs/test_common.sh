# Sourced by proofs/test_baseline.sh and proofs/test_gappa.sh, which set `name` (for messages),
# `part` (FAMILY.PART) and `entry` (its proofs/cache/ file) first: a scratch copy of the tree in
# $tmp (removed on exit) and `check`, which replays the part there against the edited entry.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r ref include proofs fast "$tmp/"
rm -rf "$tmp/proofs/out"
fails=0
check() { # check DESCRIPTION EXPECTED-STATUS [PATTERN]; then restores the committed entry
    local rc=0
    (cd "$tmp" && proofs/prove --only "$part" > "$tmp/out.txt" 2>&1) || rc=$?
    if [ "$rc" != "$2" ] || { [ -n "${3:-}" ] && ! grep -q -- "$3" "$tmp/out.txt"; }; then
        echo "$name: FAIL: $1: exit $rc (expected $2${3:+, output with '$3'})" >&2
        cat "$tmp/out.txt" >&2
        fails=$((fails + 1))
    else
        echo "$name: ok: $1 (exit $rc)"
    fi
    cp "$entry" "$tmp/$entry"
}
