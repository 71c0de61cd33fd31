#!/bin/sh
# optcert families lists every family of the vector set: exactly the directories of vectors/
# that hold a vector file, each with at least one valid case (no count is written here: a new
# family's directory is all it takes). Usage: cli_families.sh OPTCERT VECTOR_DIR
set -eu
optcert=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$optcert" families --vectors "$dir" > "$tmp/table"
awk 'NR > 1 { print $1 }' "$tmp/table" | sort > "$tmp/listed"
for d in "$dir"/*/; do
    set -- "$d"*.json
    [ -f "$1" ] && basename "$d"
done | sort > "$tmp/dirs"
if ! cmp -s "$tmp/listed" "$tmp/dirs"; then
    echo "cli_families: optcert families and the vector directories differ:" >&2
    diff "$tmp/listed" "$tmp/dirs" >&2 || true
    exit 1
fi
[ -s "$tmp/listed" ] || { echo "cli_families: no family listed" >&2; exit 1; }
if awk 'NR > 1 && !($3 > 0) { print "cli_families: no valid case in " $1; bad = 1 } END { exit !bad }' \
    "$tmp/table" >&2; then
    exit 1
fi
echo "cli_families: $(wc -l < "$tmp/listed") families, each with valid cases"
