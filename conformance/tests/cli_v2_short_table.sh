#!/bin/sh
# VEC-ABI-4: the naive plugin's v2 table, ending at an inaccessible page (v2_short_table.c),
# certifies exactly as the naive plugin over every family (each family's entry is looked up):
# the same exit status and the same certificate.
# Usage: cli_v2_short_table.sh OPTCERT NAIVE_PLUGIN SHORT_PLUGIN
set -u
optcert=$1 naive=$2 short=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$optcert" certify --impl "$naive" > "$tmp/naive" 2>&1; a=$?
"$optcert" certify --impl "$short" > "$tmp/short" 2>&1; b=$?
grep -v 'implementation:' "$tmp/naive" > "$tmp/naive.row"
grep -v 'implementation:' "$tmp/short" > "$tmp/short.row"
if [ "$a" != "$b" ] || [ ! -s "$tmp/short.row" ] || ! cmp -s "$tmp/naive.row" "$tmp/short.row"; then
    echo "cli_v2_short_table: naive exit $a, short-table exit $b" >&2
    cat "$tmp/short" >&2
    exit 1
fi
echo "cli_v2_short_table: same certificate, exit $b"
