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
rejected() { # family expected-substring: its edited copy in $tmp, certified, exits 2 with it
    check "$2" "$optcert" certify --vectors "$tmp" --family "$1"
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
step="$root/vectors/guarded-step-megatron/guarded-step-megatron"
edit() { # python-statement-on-d: the guarded-step-megatron JSON edited into the copy
    /usr/bin/python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$1
json.dump(d, open(sys.argv[2], 'w'))" "$step.json" "$tmp/guarded-step-megatron/guarded-step-megatron.json"
}
rm -rf "$tmp/lion-torch"
mkdir "$tmp/guarded-step-megatron"
edit "del d['tensors']"
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 1: tensor '1/state' needs a tensors file"
edit "d['testGroups'][0]['tests'][0]['inputs']['state'] = '__metadata__'"
/usr/bin/python3 -c "import json, struct, sys
b = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n])
h['__metadata__'] = {'note': 'not a tensor'}
h = json.dumps(h).encode()
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(h)) + h + b[8 + n:])" "$step.safetensors" "$tmp/guarded-step-megatron/guarded-step-megatron.safetensors"
rejected guarded-step-megatron "guarded-step-megatron.safetensors: '__metadata__' is not a tensor"
rm "$tmp/guarded-step-megatron/guarded-step-megatron.safetensors"
mkfifo "$tmp/guarded-step-megatron/guarded-step-megatron.safetensors"
rejected guarded-step-megatron "guarded-step-megatron.safetensors: not a regular file"
check "guarded-step-megatron.safetensors: not a regular file" "$optcert" judge --results "$tmp/guarded-step-megatron/guarded-step-megatron.safetensors" --vectors "$tmp"
rm "$tmp/guarded-step-megatron/guarded-step-megatron.json"
mkfifo "$tmp/guarded-step-megatron/guarded-step-megatron.json"
rejected guarded-step-megatron "guarded-step-megatron.json: not a regular file"
mkdir "$tmp/results.safetensors"
check "results.safetensors: not a regular file" "$optcert" judge --results "$tmp/results.safetensors" --vectors "$tmp"
check "/dev/zero: not a regular file" "$optcert" judge --results /dev/zero --vectors "$tmp"
# Issue 18 item 3: every bad input exits 2 naming the file and the problem.
rm -rf "$tmp/guarded-step-megatron" "$tmp/results.safetensors"
fam() { # family python-statements-on-d: a copy of that family with its JSON edited
    rm -rf "$tmp/$1"
    cp -r "$root/vectors/$1" "$tmp/"
    /usr/bin/python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
tests = [t for g in d['testGroups'] for t in g['tests']]
$2
json.dump(d, open(sys.argv[1], 'w'))" "$tmp/$1/$1.json"
}
# A missing vector directory, in every command.
for cmd in certify families mutants "vectors verify"; do
    check "/MISSING: no such directory" "$optcert" $cmd --vectors "$tmp/MISSING"
done
check "/MISSING: no such directory" "$optcert" judge --results "$root/vectors/sgd-torch/sgd-torch.safetensors" --vectors "$tmp/MISSING"
# A muon-route-megatron case whose parameter.shape disagrees with rows x cols (was heap corruption).
fam muon-route-megatron "tests[0]['parameter']['shape'] = [64, 8]"
rejected muon-route-megatron "muon-route-megatron.json: tcId 1: parameter.shape (512 elements, stored as \[64, 8\]) disagrees with rows x cols = \[32, 8\]"
fam muon-route-megatron "tests[9]['parameter']['shape'] = [12, 2, 4]"
rejected muon-route-megatron "tcId 10: parameter.shape (96 elements, stored as \[12, 8\]) disagrees with rows x cols = \[8, 12\]"
rm -rf "$tmp/muon-route-megatron"
# Tolerances: not finite, negative, or above what the derivation allows.
fam schedule-megatron "tests[0]['points'][0]['lrTol'] = 'inf'"
rejected schedule-megatron "schedule-megatron.json: tcId 1: tolerance lrTol\[0\] = inf: must be finite"
fam schedule-megatron "tests[0]['points'][0]['wdTol'] = '0x1p+0'"
rejected schedule-megatron "schedule-megatron.json: tcId 1: tolerance wdTol\[0\] = 1: must be finite, >= 0 and <="
rm -rf "$tmp/schedule-megatron"
fam clip-torch "tests[0]['expected']['gradRelTol'] = 'inf'"
rejected clip-torch "clip-torch.json: tcId 1: tolerance gradRelTol\[0\] = inf"
fam clip-torch "tests[0]['expected']['normTol'] = '0x1p+10'"
rejected clip-torch "clip-torch.json: tcId 1: tolerance normTol\[0\] = 1024: must be"
# CLIP-TOL-2: the inf-norm is exact: a positive normTol or gradRelTol above 5 u is refused.
fam clip-torch "t = [t for t in tests if t['tcId'] == 7][0]; t['expected']['normTol'] = '0x1p-1000'"
rejected clip-torch "clip-torch.json: tcId 7: tolerance normTol\[0\] = 9.33264e-302: must be finite, >= 0 and <= 4.94066e-324"
fam clip-torch "t = [t for t in tests if t['tcId'] == 7][0]; t['expected']['gradRelTol'] = '0x1.4000001p-22'"
rejected clip-torch "clip-torch.json: tcId 7: tolerance gradRelTol\[0\] = "
rm -rf "$tmp/clip-torch"
fam muonclip-kimi "[t for t in tests if t['result'] == 'valid'][0]['expected']['relTol'] = '0x1p-3'"
rejected muonclip-kimi "muonclip-kimi.json: tcId [0-9]*: tolerance relTol\[0\] = 0.125: must be finite, >= 0 and <= 4.76837e-07"
rm -rf "$tmp/muonclip-kimi"
# VEC-FMT-19: a bit pattern outside its format, a test without a direction, an unknown moment
# format.
fam te-storage-fusedadam "[t for t in tests if t['direction'] == 'load'][0]['inputs']['param'][0] = 65536"
rejected te-storage-fusedadam "te-storage-fusedadam.json: tcId 2: inputs.param\[0\] is not a bit pattern"
fam te-storage-fusedadam "del tests[0]['direction']"
rejected te-storage-fusedadam "te-storage-fusedadam.json: tcId 1: needs direction store or load"
fam te-storage-fusedadam "d['testGroups'][0]['hparams']['expAvg'] = 'fp4'"
rejected te-storage-fusedadam "te-storage-fusedadam.json: hparams.expAvg must be one of"
rm -rf "$tmp/te-storage-fusedadam"
# A NaN hyper-parameter in a case marked valid is a bad vector, not an implementation failure.
fam sgd-torch "d['testGroups'][0]['hparams']['lr'] = 'nan'"
rejected sgd-torch "sgd-torch.json: tcId 1: hyper-parameter 'lr' is NaN in a valid case"
rm -rf "$tmp/sgd-torch"
fam guarded-step-megatron "[t for t in tests if t['result'] == 'valid'][0]['optimizers'][0]['hparams']['lr'] = 'nan'"
rejected guarded-step-megatron "guarded-step-megatron.json: tcId [0-9]*: hyper-parameter 'lr' is NaN in a valid case"
rm -rf "$tmp/guarded-step-megatron"
# A duplicate tcId (VEC-FMT-2).
fam sgd-torch "tests[5]['tcId'] = tests[2]['tcId']"
rejected sgd-torch "sgd-torch.json: duplicate tcId 3"
rm -rf "$tmp/sgd-torch"
# Results files (VEC-RES-5): wrong family, unknown tcId, missing tensor, wrong dtype or shape,
# unknown status, bad route are problems of the file: exit 2 naming it.
results() { # python-statements adding to meta (dict) and tensors (list of (key, dtype, shape))
    /usr/bin/python3 -c "import json, struct, sys
d = json.load(open(sys.argv[1]))
t1 = d['testGroups'][0]['tests'][0]
meta = {'impl': 'broken', 'implVersion': '0'}
tensors = []
$1
hdr, data = {'__metadata__': meta}, b''
for key, dt, shape in tensors:
    size = {'F32': 4, 'F64': 8}[dt]
    for s in shape:
        size *= s
    hdr[key] = {'dtype': dt, 'shape': shape, 'data_offsets': [len(data), len(data) + size]}
    data += bytes(size)
h = json.dumps(hdr).encode()
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(h)) + h + data)" "$root/vectors/sgd-torch/sgd-torch.json" "$tmp/results.safetensors"
}
judge() { check "$1" "$optcert" judge --results "$tmp/results.safetensors" --family sgd-torch; }
results "meta['status/sgd-torch/1'] = 'done'"
judge "results.safetensors: status/sgd-torch/1 = 'done': unknown status"
results "meta['status/sgd-torch/1'] = 'ok'"
judge "results.safetensors: missing tensor 'sgd-torch/1/p'"
results "meta['status/sgd-torch/1'] = 'ok'; tensors += [('sgd-torch/1/' + k, 'F64', [t1['steps'], t1['n']]) for k in t1['expected']]"
judge "results.safetensors: tensor 'sgd-torch/1/p' has dtype F64, expected F32"
results "meta['status/sgd-torch/1'] = 'ok'; tensors += [('sgd-torch/1/' + k, 'F32', [t1['steps'] + 1, t1['n']]) for k in t1['expected']]"
judge "results.safetensors: tensor 'sgd-torch/1/p' has the wrong shape"
results "meta['status/sgd-torhc/1'] = 'ok'"
judge "results.safetensors: metadata key 'status/sgd-torhc/1' names family 'sgd-torhc', which .* does not have (wrong family)"
results "tensors.append(('sgd-torhc/1/p', 'F32', [1, 4]))"
judge "results.safetensors: tensor 'sgd-torhc/1/p' names family 'sgd-torhc'"
# VEC-NAME-1: a family's old name, in a results file or as --family, is answered with its new one
results "meta['status/ns-simple/1'] = 'ok'"
judge "results.safetensors: metadata key 'status/ns-simple/1' names family 'ns-simple', which .* does not have (renamed 'newton-schulz-simple', VEC-NAME-1)"
for cmd in certify judge selftest mutants; do
    check "family 'step-megatron' is now named 'guarded-step-megatron' (VEC-NAME-1)" "$optcert" $cmd --family step-megatron
done
results "meta['status/sgd-torch/99999'] = 'unsupported'"
judge "results.safetensors: metadata key 'status/sgd-torch/99999' names tcId 99999, which family 'sgd-torch' does not have"
results "tensors.append(('p', 'F32', [1, 4]))"
judge "results.safetensors: tensor 'p' is not named <family>/<tcId>/<name>"
ok1="meta['status/sgd-torch/1'] = 'ok'; tensors += [('sgd-torch/1/' + k, 'F32', [t1['steps'], t1['n']]) for k in t1['expected']]"
results "$ok1; tensors.append(('sgd-torch/1/velocity', 'F32', [t1['steps'], t1['n']]))"
judge "results.safetensors: tensor 'sgd-torch/1/velocity' is not an output of that case"
results "$ok1; meta['status/sgd-torch/2'] = 'rejected'; tensors.append(('sgd-torch/2/p', 'F32', [1, 1]))"
judge "results.safetensors: tensor 'sgd-torch/2/p' is not an output of that case"
# VEC-TOL-1: a per-case bound above its cap (2^-4 of the values judged, 2^24 u_C for a matrix
# class) is refused naming the file, the tcId and the entry: 1e30 in a per-entry bound of each
# kind of family, 2^-3 of the values in an element-wise one, 1e30 in a Muon and a Newton-Schulz
# table.
tol() { # family tcId expected-output tensor-field index value-python (S: that entry's scale)
    rm -rf "$tmp/$1"
    cp -r "$root/vectors/$1" "$tmp/"
    /usr/bin/python3 -c "import json, math, struct, sys
fam, tc, out, field, i = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
d = json.load(open(sys.argv[6]))
t = [t for g in d['testGroups'] for t in g['tests'] if t['tcId'] == tc][0]
b = bytearray(open(sys.argv[7], 'rb').read())
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n])
def at(key, k):
    e = h[key]
    w = {'F32': 4, 'F64': 8, 'F16': 2, 'BF16': 2}[e['dtype']]
    return 8 + n + e['data_offsets'][0] + w * k, '<' + {'F32': 'f', 'F64': 'd', 'F16': 'e', 'BF16': 'H'}[e['dtype']]
def get(key, k):
    o, f = at(key, k)
    x = struct.unpack_from(f, b, o)[0]
    return struct.unpack('<f', struct.pack('<I', x << 16))[0] if f == '<H' else x
S = abs(get(t['expected'][out]['f64'], i))
if out in t.get('inputs', {}) and t['inputs'][out] in h:
    S = max(S, abs(get(t['inputs'][out], i)))
o, f = at(t['expected'][out][field], i)
struct.pack_into(f, b, o, $6)
open(sys.argv[7], 'wb').write(b)" "$1" "$2" "$3" "$4" "$5" "$tmp/$1/$1.json" "$tmp/$1/$1.safetensors"
}
tol adam-torch 1 p tolFp32 5 1e30
rejected adam-torch "adam-torch.json: tcId 1: tolerance p\[5\] = 1e+30: must be finite, >= 0 and <= .* (VEC-TOL-1)"
tol adam-torch 1 v tolFp32 3 "S / 8 + 2 ** -90"
rejected adam-torch "adam-torch.json: tcId 1: tolerance v\[3\] = .*(VEC-TOL-1)"
rm -rf "$tmp/adam-torch"
tol sgd-torch-mixed 1 master tolFp32 0 1e30
rejected sgd-torch-mixed "sgd-torch-mixed.json: tcId 1: tolerance master\[0\] = 1e+30: .*(VEC-TOL-1)"
rm -rf "$tmp/sgd-torch-mixed"
tol guarded-step-megatron 2 value tol 7 1e30
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 2: tolerance value\[7\] = 1e+30: .*(VEC-TOL-1)"
rm -rf "$tmp/guarded-step-megatron"
tol muon-keller 1 p tol 2 1e30
rejected muon-keller "muon-keller.json: tcId 1: tolerance p\[2\] = 1e+30: .*(VEC-TOL-1)"
rm -rf "$tmp/muon-keller"
tol newton-schulz-simple 1 x tol 3 1e30
rejected newton-schulz-simple "newton-schulz-simple.json: tcId 1: tolerance x\[3\] = 1e+30: .*(VEC-TOL-1)"
rm -rf "$tmp/newton-schulz-simple"
# VEC-TOL-2: an element-wise entry raised to 1.5 times its tolerance (still under VEC-TOL-1's cap)
# is refused with the bound the derivation gives for it; set to that bound the family loads and
# conforms, set to the next binary64 above it it is refused. fp32 outputs of each family (one
# step, and the last of 1000), an fp32 master and an f16 and a bf16 parameter of the mixed
# variants (no committed 16-bit state entry has a non-zero bound); an AdamW route's p (decayed)
# and v (a 1-D parameter: ROUTE-WD-1); the guarded step's norm, a clipped gradient and a state
# entry after six iterations (STEP-TOL-2); a Newton-Schulz table's fp32 Frobenius bound, bf16
# band and exact-class bound (NS-TOL-1: a converged and a sign-changing trajectory); a Muon
# step's p and m bounds, a Muon route's, and the block step's over 2 and 4 ranks and a QKV split
# (MUON-TOL-1, MUON-BLK-TOL-1).
capped() { # family tcId output index [tensor field, default tolFp32]
    field=${5:-tolFp32}
    tol "$1" "$2" "$3" "$field" "$4" "get(t['expected'][out]['$field'], i) * 1.5"
    rejected "$1" "$1.json: tcId $2: tolerance $3\\[$4\\] = .* exceeds .*(VEC-TOL-2)"
    cap=$(sed -n 's/.* exceeds \([^,]*\), the bound.*/\1/p' "$tmp/err")
    tol "$1" "$2" "$3" "$field" "$4" "$cap"
    "$optcert" certify --vectors "$tmp" --family "$1" >"$tmp/out" 2>"$tmp/err" ||
        { echo "$1 tcId $2 $3[$4] at its cap $cap does not load"; cat "$tmp/err"; exit 1; }
    tol "$1" "$2" "$3" "$field" "$4" "math.nextafter($cap, math.inf)"
    rejected "$1" "$1.json: tcId $2: tolerance $3\\[$4\\] = .* exceeds $cap, the bound .*(VEC-TOL-2)"
    rm -rf "${tmp:?}/$1"
}
capped adam-torch 1 p 5
capped adam-torch 25 v 7995
capped adam-keras 25 p 7999
capped sgd-torch 1 buf 1
capped sgd-ema 25 p 7999
capped lion-torch 25 p 7998
capped lion-torch 1 m 2
capped adam-torch-mixed 2 master 484
capped adam-torch-mixed 9 p 178
capped sgd-torch-mixed 17 p 283
capped muon-route-megatron 1 p 5 tol
capped muon-route-megatron 2 v 3 tol
capped guarded-step-megatron 5 value 1 tol
capped guarded-step-megatron 4 value 45 tol
capped guarded-step-megatron 12 value 634 tol
capped newton-schulz-simple 1 x 2 tol
capped newton-schulz-aol 15 x 7 tol
capped newton-schulz-polar-express 15 x 0 tol
capped muon-keller 1 p 2 tol
capped muon-megatron 3 m 7 tol
capped muon-moonlight 5 p 1 tol
capped muon-route-megatron 3 m 2 tol
capped muon-blocks-megatron-tp 2 p 3 tol
capped muon-blocks-megatron-qkv 5 p 6 tol
# The adafactor families (values inline, VEC-FMT-21; ADAFACTOR-TOL-2): an entry of the packed
# state ("state", p then m then v or row and col, step after step) raised the same way: a p
# entry after the last of 8 steps and a row statistic (torch, factored), an m entry (transformers,
# first moment), a p entry (optax) and a v entry after 8 steps (paper, unfactored).
inline_tol() { # family tcId packed-index value-python (x: the entry's tolerance)
    fam "$1" "t = [t for t in tests if t['tcId'] == $2][0]
per = len(t['expected']['tolFp32'][0])
row, col = divmod($3, per)
x = float.fromhex(t['expected']['tolFp32'][row][col])
import math
t['expected']['tolFp32'][row][col] = float($4).hex()"
}
inline_capped() { # family tcId packed-index
    inline_tol "$1" "$2" "$3" "x * 1.5"
    rejected "$1" "$1.json: tcId $2: tolerance state\\[$3\\] = .* exceeds .*(VEC-TOL-2)"
    cap=$(sed -n 's/.* exceeds \([^,]*\), the bound.*/\1/p' "$tmp/err")
    inline_tol "$1" "$2" "$3" "$cap"
    "$optcert" certify --vectors "$tmp" --family "$1" >"$tmp/out" 2>"$tmp/err" ||
        { echo "$1 tcId $2 state[$3] at its cap $cap does not load"; cat "$tmp/err"; exit 1; }
    inline_tol "$1" "$2" "$3" "math.nextafter($cap, math.inf)"
    rejected "$1" "$1.json: tcId $2: tolerance state\\[$3\\] = .* exceeds $cap, the bound .*(VEC-TOL-2)"
    rm -rf "${tmp:?}/$1"
}
inline_capped adafactor-torch 5 206
inline_capped adafactor-torch 5 224
inline_capped adafactor-transformers 17 79
inline_capped adafactor-optax 3 2
inline_capped adafactor-paper 6 91
# VEC-FMT-18: a valid guarded-step case whose Adam STEP-TOL-2 derives no bound for (maximize);
# SGD's ema profile likewise.
fam guarded-step-megatron "t = [t for t in tests if t['tcId'] == 5][0]; t['optimizers'][0]['hparams']['maximize'] = True"
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 5: sub-optimizer 0 is outside what STEP-TOL-2 derives bounds for (adam: torch, without amsgrad or maximize)"
# VEC-FMT-17: with amsgrad an Adam sub-optimizer's rows carry vmax too (its state layout,
# MP-STORE-1), which these rows lack.
fam guarded-step-megatron "t = [t for t in tests if t['tcId'] == 5][0]; t['optimizers'][0]['hparams']['amsgrad'] = True"
rejected guarded-step-megatron "tensor '5/state' has the wrong shape"
fam guarded-step-megatron "t = [t for t in tests if t['tcId'] == 5][0]; t['optimizers'][1]['profile'] = 'ema'"
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 5: sub-optimizer 1 is outside what STEP-TOL-2 derives bounds for"
# A golden step counter that is no integer (read as the bias correction's t): refused before any
# cast. Column 12: after outcome, norm, position and the three scalers' states (STEP-SCALER-2).
tol guarded-step-megatron 5 value stored 12 1e300
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 5: expected step counter of sub-optimizer 0 in row 0 is not an integer in \[0, 2^62\]"
# VEC-FMT-17, STEP-SCALER-2: one loss-scaler state per sub-optimizer, scalerState or
# scalerStates but not both, and none in a mode without a scaler.
fam guarded-step-megatron "t = [t for t in tests if t['tcId'] == 5][0]; t['scalerStates'].pop()"
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 5: scalerStates needs one state per sub-optimizer (3)"
fam guarded-step-megatron "t = [t for t in tests if t['tcId'] == 5][0]; t['scalerState'] = t['scalerStates'][0]"
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 5: the scaled mode needs scalerState or scalerStates (one of them)"
fam guarded-step-megatron "t = [t for t in tests if t['tcId'] == 6][0]; t['scalerState'] = {'scale': '0x1p+0', 'growthTracker': 0, 'hysteresisTracker': 2}"
rejected guarded-step-megatron "guarded-step-megatron.json: tcId 6: a loss-scaler state in a mode without a scaler"
rm -rf "$tmp/guarded-step-megatron"
# VEC-FMT-18: a valid distributed clip case whose view names a rank outside its tp/pp/dp sizes.
fam clip-megatron "t = [t for t in tests if t['tcId'] == 17][0]; t['views'][1]['pp'] = 2"
rejected clip-megatron "clip-megatron.json: tcId 17: views\\[1\\].pp = 2, but the group's ppSize is 2"
fam clip-megatron "t = [t for t in tests if t['tcId'] == 16][0]; t['views'][5]['dp'] = 7"
rejected clip-megatron "clip-megatron.json: tcId 16: views\\[5\\].dp = 7, but the group's dpSize is 3"
rm -rf "$tmp/clip-megatron"
# VEC-ABI-1: a file that names a family optcert knows with another algorithm (fuzz_vectors found
# a muon-blocks file named muon-moonlight: its runner called the Muon step's entry as the block
# step's); also through the family a resume- family runs on.
fam muon-blocks-megatron-qkv "d['family'] = 'muon-moonlight'"
rejected muon-blocks-megatron-qkv "muon-blocks-megatron-qkv.json: family 'muon-moonlight' runs on muon-moonlight's entry (algorithm 'muon'), not algorithm 'muon-blocks'"
fam muon-blocks-megatron-qkv "d['family'] = 'resume-muon-moonlight'"
rejected muon-blocks-megatron-qkv "muon-blocks-megatron-qkv.json: family 'resume-muon-moonlight' runs on muon-moonlight's entry (algorithm 'muon'), not algorithm 'muon-blocks'"
rm -rf "$tmp/muon-blocks-megatron-qkv"
# VEC-FMT-18: a valid case whose Muon block partition or MuonClip layout does not fit its shape.
fam muon-blocks-megatron-qkv "d['testGroups'][0]['hparams']['qkvHeadDim'] = 5"
rejected muon-blocks-megatron-qkv "muon-blocks-megatron-qkv.json: tcId 1: the partition (tpSize, tpDim, qkvHeads, qkvGroups, qkvHeadDim) does not fit rows x cols = \[48, 32\]"
rm -rf "$tmp/muon-blocks-megatron-qkv"
fam muonclip-kimi "d['testGroups'][0]['hparams']['groups'] = 3"
rejected muonclip-kimi "muonclip-kimi.json: tcId 1: heads, groups, headDim, hidden do not form a layout"
rm -rf "$tmp/muonclip-kimi"
# Non-regular files in every command: a family file that is a FIFO (selftest, mutants, families,
# vectors verify), a plugin that is a FIFO or a directory, a FIFO in the tree optcert trace reads.
mkdir "$tmp/sgd-torch"
cp "$root/vectors/sgd-torch/sgd-torch.json" "$tmp/sgd-torch/"
mkfifo "$tmp/sgd-torch/sgd-torch.safetensors"
for cmd in selftest mutants families "vectors verify"; do
    check "sgd-torch.safetensors: not a regular file" "$optcert" $cmd --vectors "$tmp"
done
rm -rf "$tmp/sgd-torch"
mkfifo "$tmp/plugin.so"
check "plugin.so: not a regular file (--impl)" "$optcert" certify --impl "$tmp/plugin.so" --vectors "$root/vectors"
check "$tmp: not a regular file (--impl)" "$optcert" certify --impl "$tmp" --vectors "$root/vectors"
mkdir -p "$tmp/tree/spec" "$tmp/tree/vectors/x"
cp "$root/spec/vectors.md" "$tmp/tree/spec/"
mkfifo "$tmp/tree/vectors/x/x.json"
check "x.json: not a regular file" "$optcert" trace --root "$tmp/tree"
check "x.json: not a regular file" "$optcert" explain VEC-TOL-1 --root "$tmp/tree"
mkfifo "$tmp/tree/spec/fifo.md"
check "fifo.md: not a regular file" "$optcert" trace --root "$tmp/tree"
echo "cli_broken_vectors: ok"
