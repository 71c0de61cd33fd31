#!/bin/sh
# Configures and builds into build/ (or into $1 with extra CMake arguments after it).
#   ci/build.sh                      release-with-debug-info build in build/
#   ci/build.sh build-asan -DOPTCERT_SANITIZE=ON
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
cmake -S . -B "$dir" "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)"
