#!/bin/sh
# Branch coverage of ref/ by the committed vectors (issue 19 item 3): builds optcert with ref/
# instrumented (gcov) in BUILD_DIR (default build-cov), certifies the reference against the
# vectors, runs the reference's CUnit suites (the excepted classes of branches must be taken
# there) and prints the figure per file and in total; fails below ci/ref-coverage-floor.txt's
# floor or above its ceiling of uncovered branches (ci/ref_coverage.py says how they are counted).
#   ci/ref-coverage.sh [BUILD_DIR] [--list] [--mutants]
set -eu
cd "$(dirname "$0")/.."
build=build-cov
case ${1:-} in --*|'') ;; *) build=$1; shift ;; esac
cmake -S . -B "$build" -DOPTCERT_REF_COVERAGE=ON >/dev/null
suites=$(cd conformance/tests && ls test_ref_*.c | sed 's/\.c$//')
# shellcheck disable=SC2086 # one target per suite
cmake --build "$build" -j"$(nproc)" --target optcert $suites >/dev/null
exec /usr/bin/python3 ci/ref_coverage.py "$build" "$@"
