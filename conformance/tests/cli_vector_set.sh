#!/bin/sh
# VEC-SET-2: a certificate names the vector set it used (manifest SHA-256, level) and says
# "custom vectors" when the files differ from the shipped manifest; VEC-SET-1: optcert vectors
# check finds the difference.
#   cli_vector_set.sh OPTCERT_BINARY
set -eu
optcert=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; cat "$tmp/out"; exit 1; }
"$optcert" certify --family lion-torch --report table --report "json:$tmp/cert.json" --report "junit:$tmp/cert.xml" >"$tmp/out"
grep -q "vectors: the shipped vectors, level ci, manifest sha256 [0-9a-f]\{64\}$" "$tmp/out" || fail "shipped set not named"
grep -q '"custom": false' "$tmp/cert.json" || fail "JSON report: custom not false"
grep -q 'name="vectors.custom" value="false"' "$tmp/cert.xml" || fail "JUnit report: custom not false"
cp -r "$root/vectors" "$tmp/v"
"$optcert" vectors check --vectors "$tmp/v" >"$tmp/out" || fail "a copy does not match its manifest"
"$optcert" certify --family lion-torch --vectors "$tmp/v" >"$tmp/out"
grep -q "vectors: the shipped vectors" "$tmp/out" || fail "an identical copy is not the shipped set"
sed -i 's/"comment": "/"comment": "edited /' "$tmp/v/lion-torch/lion-torch.json"
"$optcert" certify --family lion-torch --vectors "$tmp/v" --report table --report "json:$tmp/cert.json" >"$tmp/out"
grep -q "vectors: custom vectors (they differ from the shipped manifest)" "$tmp/out" || fail "edited set not called custom"
grep -q '"custom": true' "$tmp/cert.json" || fail "JSON report: custom not true"
set +e
"$optcert" vectors check --vectors "$tmp/v" >"$tmp/out"
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "files only: .* lion-torch/lion-torch.json" "$tmp/out" || fail "vectors check: rc $rc"
rm "$tmp/v/MANIFEST.sha256"
set +e
"$optcert" vectors check --vectors "$tmp/v" >"$tmp/out" 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "MANIFEST.sha256: cannot read the manifest" "$tmp/out" || fail "no manifest: rc $rc"
