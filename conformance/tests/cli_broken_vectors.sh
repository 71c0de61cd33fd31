#!/bin/sh
# A broken vector file makes every command exit with status 2 and a message naming the file
# and the problem (VEC-FMT-7: truncated safetensors; VEC-FMT-1: malformed JSON).
#   cli_broken_vectors.sh OPTCERT_BINARY
set -eu
optcert=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { # expected-substring command...
    want=$1
    shift
    set +e
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    if [ $rc -ne 2 ] || ! grep -q "$want" "$tmp/err"; then
        echo "expected exit 2 and '$want' from: $*  (got $rc)"
        cat "$tmp/err"
        exit 1
    fi
}
cp -r "$root/vectors/lion-torch" "$tmp/"
head -c 100 "$root/vectors/lion-torch/lion-torch.safetensors" >"$tmp/lion-torch/lion-torch.safetensors"
for cmd in certify families mutants; do
    check "lion-torch.safetensors: header length" "$optcert" $cmd --vectors "$tmp"
done
cp "$root/vectors/lion-torch/lion-torch.safetensors" "$tmp/lion-torch/"
head -c 2000 "$root/vectors/lion-torch/lion-torch.json" >"$tmp/lion-torch/lion-torch.json"
check "lion-torch.json: line" "$optcert" certify --vectors "$tmp"
check "results.safetensors: cannot open" "$optcert" judge --results "$tmp/results.safetensors" --vectors "$tmp"
# A tensor family without "tensors" (VEC-FMT-9), a case naming __metadata__ as a tensor
# (VEC-FMT-7), and a FIFO, a directory or a device where a file belongs are refused, not crashed
# on or blocked on.
step="$root/vectors/step-megatron/step-megatron"
edit() { # python-statement-on-d: the step-megatron JSON edited into the copy
    /usr/bin/python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$1
json.dump(d, open(sys.argv[2], 'w'))" "$step.json" "$tmp/step-megatron/step-megatron.json"
}
rm -rf "$tmp/lion-torch"
mkdir "$tmp/step-megatron"
edit "del d['tensors']"
check "step-megatron.json: tcId 1: tensor '1/state' needs a tensors file" "$optcert" certify --vectors "$tmp" --family step-megatron
edit "d['testGroups'][0]['tests'][0]['inputs']['state'] = '__metadata__'"
/usr/bin/python3 -c "import json, struct, sys
b = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n])
h['__metadata__'] = {'note': 'not a tensor'}
h = json.dumps(h).encode()
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(h)) + h + b[8 + n:])" "$step.safetensors" "$tmp/step-megatron/step-megatron.safetensors"
check "step-megatron.safetensors: '__metadata__' is not a tensor" "$optcert" certify --vectors "$tmp" --family step-megatron
rm "$tmp/step-megatron/step-megatron.safetensors"
mkfifo "$tmp/step-megatron/step-megatron.safetensors"
check "step-megatron.safetensors: not a regular file" "$optcert" certify --vectors "$tmp" --family step-megatron
check "step-megatron.safetensors: not a regular file" "$optcert" judge --results "$tmp/step-megatron/step-megatron.safetensors" --vectors "$tmp"
rm "$tmp/step-megatron/step-megatron.json"
mkfifo "$tmp/step-megatron/step-megatron.json"
check "step-megatron.json: not a regular file" "$optcert" certify --vectors "$tmp" --family step-megatron
mkdir "$tmp/results.safetensors"
check "results.safetensors: not a regular file" "$optcert" judge --results "$tmp/results.safetensors" --vectors "$tmp"
check "/dev/zero: not a regular file" "$optcert" judge --results /dev/zero --vectors "$tmp"
