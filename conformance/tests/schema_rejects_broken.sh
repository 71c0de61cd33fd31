#!/bin/sh
# The schema check has teeth: a copy of a committed family with one broken field must fail
# ci/validate_vectors.py (VEC-FMT-3: result is valid, invalid or acceptable; VEC-FMT-6: every
# flag used by a test is defined in notes); the committed files must pass it.
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
/usr/bin/python3 "$root/ci/validate_vectors.py" "$root/vectors"
