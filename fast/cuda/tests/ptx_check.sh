#!/bin/sh
# FAST-CUDA-DET-1 in the code nvcc generates: compiles the kernels to PTX for every architecture
# with the build's flags and fails on any fused multiply-add or approximate division, square
# root or reciprocal (fma.*, mad.*, div.approx/full, sqrt.approx, rcp.approx).
#   ptx_check.sh NVCC KERNELS.cu "FLAGS" INCLUDE_DIR...
set -eu
nvcc=$1 src=$2 flags=$3
shift 3
inc=""
for d in "$@"; do inc="$inc -I$d"; done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in 80 90; do
    # shellcheck disable=SC2086,SC2046
    "$nvcc" --ptx $(echo "$flags" | tr ';' ' ') $inc -arch=compute_$arch "$src" -o "$tmp/k$arch.ptx"
    n=$(grep -c -E '^[[:space:]]*(fma|mad)\.|(div|sqrt|rcp)\.(approx|full)' "$tmp/k$arch.ptx" || true)
    ops=$(grep -c -E '^[[:space:]]*(add|mul|sub|div|sqrt)\.' "$tmp/k$arch.ptx" || true)
    echo "compute_$arch: $ops arithmetic instructions, $n fused or approximate"
    test "$ops" -gt 0 && test "$n" -eq 0
done
