#!/bin/sh
# Issue 19, item 6: `optcert --help` prints the usage on standard output with status 0; the
# certificate table keeps its columns aligned whatever the length of a family name, names the
# class of the bound its worst/bound column divides by, and says why each family was skipped.
#   cli_table.sh OPTCERT_BINARY PLUGIN.so
set -eu
optcert=$1
plugin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; cat "$tmp/out"; exit 1; }
for form in --help -h help "certify --help"; do
    # shellcheck disable=SC2086
    "$optcert" $form >"$tmp/out" 2>"$tmp/err" || fail "optcert $form: status $?"
    grep -q "^usage:" "$tmp/out" || fail "optcert $form: no usage on standard output"
    ! grep -q "unknown" "$tmp/out" "$tmp/err" || fail "optcert $form: says unknown"
done
set +e
"$optcert" bogus-command >"$tmp/out" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "unknown command" "$tmp/out" || fail "an unknown command: rc $rc"
"$optcert" certify --impl "$plugin" >"$tmp/out"
# every row of the table ends its bound column at the same character as the header
awk '/^family /{h=1; w=length($0); next} h && NF==0 {exit} h { if (length($0) != w) { print "misaligned: " $0; bad=1 } } END { exit bad }' "$tmp/out" \
    || fail "table columns not aligned"
grep -q "^family .* worst/bound bound$" "$tmp/out" || fail "no bound class column"
grep -q "^loss-scale-megatron-constant .* fp32$" "$tmp/out" || fail "long family name row"
grep -q "^schedule-megatron .* fp64$" "$tmp/out" || fail "schedule bound not fp64"
grep -q "^  adam-keras: \([0-9][0-9]*\) of \1 cases skipped: not claimed by the implementation (no adam capability" "$tmp/out" \
    || fail "no reason for a skipped family"
"$optcert" certify --class bf16 --family newton-schulz-simple >"$tmp/out"
grep -q "^newton-schulz-simple .* bf16$" "$tmp/out" || fail "matrix family bound not its class"
# a results file without a family: skipped, and said why
/usr/bin/python3 - "$tmp/r.safetensors" <<'PY'
import json, struct, sys
h = json.dumps({"__metadata__": {"impl": "none", "implVersion": "0"}}).encode()
open(sys.argv[1], "wb").write(struct.pack("<Q", len(h)) + h)
PY
set +e
"$optcert" judge --results "$tmp/r.safetensors" --family lion-torch >"$tmp/out"
set -e
grep -q "^  lion-torch: \([0-9][0-9]*\) of \1 cases skipped: not in the results file" "$tmp/out" \
    || fail "no reason for a family absent from the results file"
