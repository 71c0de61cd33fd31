#!/usr/bin/env bash
# Shows that proofs/prove's cache key of a part changes with every kind of input, and only with
# its own: in a scratch copy of the tree, a header the part includes (include/optcert/status.h,
# reached from ref/adam.c), an option of the part (its timeout), and a prover's version (a z3 on
# PATH that reports another version) each give adam.main a new key; a header it does not include
# (include/optcert/muon.h) and another family's parts file leave it as it was. A Gappa part's key
# (adam.gappa) changes with its files, proofs/gappa_log.py and Gappa's version, and not with
# proofs/observe.py, which in turn leaves gappa_log.py out of the Frama-C parts' keys.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r ref include proofs fast "$tmp/"
rm -rf "$tmp/proofs/out" "$tmp/proofs/cache"
key() { # key PART [PATH]: the part's key in the scratch tree; the test stops if there is none
    local k
    k=$(cd "$tmp" && PATH="${2:-$PATH}" proofs/prove --key "$1" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["key"])') || k=
    if ! [[ $k =~ ^[0-9a-f]{64}$ ]]; then
        echo "test_cache_key: FAIL: no key for $1" >&2
        kill -TERM $$
    fi
    echo "$k"
}
fails=0
expect() { # expect same|changed DESCRIPTION OLD NEW
    if { [ "$1" = changed ] && [ "$3" = "$4" ]; } || { [ "$1" = same ] && [ "$3" != "$4" ]; }; then
        echo "test_cache_key: FAIL: $2: key expected $1" >&2
        fails=$((fails + 1))
    else
        echo "test_cache_key: ok: $2 -> key $1"
    fi
}
k0=$(key adam.main)
echo '/* an edit */' >> "$tmp/include/optcert/muon.h"
expect same "edit of a header adam.main does not include" "$k0" "$(key adam.main)"
echo '# an edit' >> "$tmp/proofs/parts/sgd.toml"
expect same "edit of another family's parts" "$k0" "$(key adam.main)"
k1=$(key adam.main)
echo '/* an edit */' >> "$tmp/include/optcert/status.h"
k2=$(key adam.main)
expect changed "edit of include/optcert/status.h (included by ref/adam.c)" "$k1" "$k2"
sed -i '0,/^\[main\]/s//[main]\ntimeout = 11/' "$tmp/proofs/parts/adam.toml"
k3=$(key adam.main)
expect changed "adam.main's timeout 10 -> 11 s" "$k2" "$k3"
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "Z3 version 4.8.13 - 64 bit"\n' > "$tmp/bin/z3"
chmod +x "$tmp/bin/z3"
expect changed "z3 reporting another version" "$k3" "$(key adam.main "$tmp/bin:$PATH")"
g0=$(key adam.gappa)
echo '# an edit' >> "$tmp/proofs/observe.py"
expect changed "edit of proofs/observe.py (reads the logs)" "$k3" "$(key adam.main)"
expect same "edit of proofs/observe.py for a Gappa part" "$g0" "$(key adam.gappa)"
k4=$(key adam.main)
echo '# an edit' >> "$tmp/proofs/gappa_log.py"
g1=$(key adam.gappa)
expect changed "edit of proofs/gappa_log.py (reads Gappa's output)" "$g0" "$g1"
expect same "edit of proofs/gappa_log.py for a Frama-C part" "$k4" "$(key adam.main)"
s1=$(key sgd.gappa)
echo '# an edit' >> "$tmp/proofs/gappa/adam_dir.g"
g2=$(key adam.gappa)
expect changed "edit of proofs/gappa/adam_dir.g (a file of adam.gappa)" "$g1" "$g2"
expect same "edit of proofs/gappa/adam_dir.g for sgd.gappa (not one of its files)" "$s1" "$(key sgd.gappa)"
printf '#!/bin/sh\necho "Gappa 1.3.5"\n' > "$tmp/bin/gappa"
chmod +x "$tmp/bin/gappa"
expect changed "gappa reporting another version" "$g2" "$(key adam.gappa "$tmp/bin:$PATH")"
[ "$fails" = 0 ] || exit 1
