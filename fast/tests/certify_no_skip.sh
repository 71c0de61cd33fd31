#!/bin/sh
# fast-cpu certifies every family of the vector set (FAST-*): each family that `optcert
# families` lists has a row with passing cases and none failed or skipped, and the verdict is
# CONFORMS. The families come from the vector set, so a new family is covered without an edit.
# Usage: certify_no_skip.sh OPTCERT
set -eu
optcert=$1
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$optcert" certify --impl fast-cpu > "$tmp"
grep -q '^verdict: CONFORMS' "$tmp" || { cat "$tmp" >&2; exit 1; }
bad=0
for f in $("$optcert" families | awk 'NR > 1 { print $1 }'); do
    # columns: family profile pass FAIL skip accepted rejected ...
    awk -v f="$f" '$1 == f && $3 > 0 && $4 == 0 && $5 == 0 { ok = 1 } END { exit !ok }' "$tmp" ||
        { echo "certify_no_skip: $f not certified in full by fast-cpu" >&2; bad=1; }
done
exit $bad
