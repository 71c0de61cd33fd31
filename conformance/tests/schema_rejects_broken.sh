#!/bin/sh
# The schema check has teeth: a copy of a committed family with one broken field must fail
# ci/validate_vectors.py (VEC-FMT-3: result is valid, invalid or acceptable; VEC-FMT-6: every
# flag used by a test is defined in notes), and so must a wrongly named one (VEC-NAME-1); the
# committed files must pass it.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for edit in 's/"result": "valid"/"result": "maybe"/' 's/^      "Random"$/      "UndefinedFlag"/'; do
    rm -rf "$tmp/adam-torch"
    cp -r "$root/vectors/adam-torch" "$tmp/"
    sed -i "$edit" "$tmp/adam-torch/adam-torch.json"
    if cmp -s "$tmp/adam-torch/adam-torch.json" "$root/vectors/adam-torch/adam-torch.json"; then
        echo "edit '$edit' changed nothing: the test is stale"
        exit 1
    fi
    if /usr/bin/python3 "$root/ci/validate_vectors.py" "$tmp" >/dev/null; then
        echo "schema check accepted a broken file ($edit)"
        exit 1
    fi
done
# VEC-NAME-1: a family whose name disagrees with its algorithm and profile fails, as copies: a
# family under its old name, whole (ns-simple), and adam-torch with profile "keras"; and one whose
# directory, file and family field differ.
named() { # dir family edit-python: $tmp/dir/dir.json from vectors/<family>, edited
    rm -rf "$tmp"/*
    mkdir "$tmp/$1"
    cp "$root/vectors/$2/$2.safetensors" "$tmp/$1/$1.safetensors"
    /usr/bin/python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['family'], d['tensors'] = sys.argv[3], sys.argv[3] + '.safetensors'
$3
json.dump(d, open(sys.argv[2], 'w'), indent=1)" "$root/vectors/$2/$2.json" "$tmp/$1/$1.json" "$1"
}
rejects_name() { # expected-message
    if /usr/bin/python3 "$root/ci/validate_vectors.py" "$tmp" >"$tmp/out" || ! grep -q "$1" "$tmp/out"; then
        echo "VEC-NAME-1 check: expected '$1', got:"
        cat "$tmp/out"
        exit 1
    fi
}
named ns-simple newton-schulz-simple ""
rejects_name "family 'ns-simple' is not named \[resume-\]newton-schulz-simple\[-<variant>\]\[-mixed\]"
named adam-torch adam-torch "d['profile'] = 'keras'"
rejects_name "family 'adam-torch' is not named \[resume-\]adam-keras"
named adam-torch adam-torch "d['family'] = 'adam-keras'"
rejects_name "family 'adam-keras' in adam-torch/adam-torch.json: the directory, the file and the family carry one name"
named adam-torch-fused adam-torch ""
/usr/bin/python3 "$root/ci/validate_vectors.py" "$tmp" >"$tmp/out" || {
    echo "VEC-NAME-1 check: a variant (adam-torch-fused) refused:"
    cat "$tmp/out"
    exit 1
}
# A tensors file that is missing or truncated is a problem named in one line, not a traceback.
for broken in missing truncated; do
    rm -rf "$tmp"/*
    cp -r "$root/vectors/adam-torch" "$tmp/"
    if [ $broken = missing ]; then
        rm "$tmp/adam-torch/adam-torch.safetensors"
    else
        head -c 100 "$root/vectors/adam-torch/adam-torch.safetensors" >"$tmp/adam-torch/adam-torch.safetensors"
    fi
    if /usr/bin/python3 "$root/ci/validate_vectors.py" "$tmp" >"$tmp/out" 2>&1 ||
        ! grep -q "tensors file adam-torch.safetensors: cannot be read" "$tmp/out" || grep -q Traceback "$tmp/out"; then
        echo "a $broken tensors file: expected a one-line problem, got:"
        cat "$tmp/out"
        exit 1
    fi
done
/usr/bin/python3 "$root/ci/validate_vectors.py" "$root/vectors"
