#!/bin/sh
# Installs what optcert needs on a fresh Debian 12 machine (run as root). Idempotent.
#   ci/setup.sh            build dependencies only (compiler, CMake, MPFR, CUnit, jansson, OpenSSL's libcrypto)
#   ci/setup.sh --all      also the Python adapters' packages (with DeepSpeed) and the proof tools
set -eu
cd "$(dirname "$0")/.."

pkgs="build-essential cmake pkg-config libmpfr-dev libcunit1-dev libjansson-dev libssl-dev python3-jsonschema"
# fast/: OpenMP comes with gcc; MPI for the layouts, OpenBLAS for the matrix work
pkgs="$pkgs libopenblas-dev libopenblas-openmp-dev openmpi-bin libopenmpi-dev"
# fast/: oneDNN for the bf16 Newton-Schulz products where the CPU multiplies bfloat16 natively
pkgs="$pkgs libdnnl-dev"
# Debian's oneDNN CMake config requires OpenCL (its find_package(OpenCL)): the loader's
# development files and the headers; a machine without them fails at configure time
pkgs="$pkgs ocl-icd-opencl-dev opencl-c-headers"
# conformance/fuzz: the libFuzzer harnesses (ci/fuzz.sh) need clang and its runtime
pkgs="$pkgs clang libclang-rt-14-dev"
# ctest html_browser: the HTML certificate rendered by headless chromium
pkgs="$pkgs chromium"
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

if [ "${1:-}" = "--all" ]; then
    ci/setup-python.sh
    ci/setup-deepspeed.sh  # DeepSpeedCPUAdam, certified by ci/certify-outside.sh
    proofs/setup.sh
fi
