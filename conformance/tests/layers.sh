#!/bin/sh
# The layers of the build (README "Layout"): the generator computes the vectors without the
# reference, the harness judges without the generator and without MPFR.
#   layers.sh NM READELF gen-not-ref BINARY ARCHIVE REF_ARCHIVE
#     fails if BINARY (optcert-gen) or ARCHIVE (liboptcert_gen.a) names any global symbol
#     REF_ARCHIVE (liboptcert_ref.a) defines, defined or undefined
#   layers.sh NM READELF harness-not-gen BINARY GEN_ARCHIVE
#     fails if BINARY (optcert) needs libmpfr or names any global symbol GEN_ARCHIVE defines
# Each failure prints what it found.
set -eu
nm=$1 readelf=$2 mode=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The global symbols an archive or program defines, one per line, sorted.
defined() { "$nm" --defined-only -g "$1" | awk 'NF == 3 && $3 != "" {print $3}' | sort -u; }
# Every symbol a file names (defined or undefined), sorted.
named() { "$nm" "$1" | awk '{print $NF}' | sort -u; }

status=0
case $mode in
gen-not-ref)
    bin=$1 archive=$2 ref=$3
    defined "$ref" > "$tmp/ref"
    test -s "$tmp/ref" || { echo "no symbols read from $ref"; exit 1; }
    for f in "$bin" "$archive"; do
        named "$f" | comm -12 "$tmp/ref" - > "$tmp/both"
        if test -s "$tmp/both"; then
            echo "$f uses reference symbols (defined in $ref):"
            sed 's/^/  /' "$tmp/both"
            status=1
        fi
    done
    ;;
harness-not-gen)
    bin=$1 gen=$2
    if "$readelf" -d "$bin" | grep NEEDED | grep -i mpfr; then
        echo "$bin links MPFR"
        status=1
    fi
    defined "$gen" > "$tmp/gen"
    test -s "$tmp/gen" || { echo "no symbols read from $gen"; exit 1; }
    named "$bin" | comm -12 "$tmp/gen" - > "$tmp/both"
    if test -s "$tmp/both"; then
        echo "$bin contains generator symbols (defined in $gen):"
        sed 's/^/  /' "$tmp/both"
        status=1
    fi
    ;;
*)
    echo "usage: layers.sh NM READELF gen-not-ref|harness-not-gen ..."
    exit 2
    ;;
esac
test $status -eq 0 && echo "layers: $mode: ok"
exit $status
