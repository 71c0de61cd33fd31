#!/bin/sh
# Builds the libFuzzer harnesses (conformance/fuzz, clang, ASan + UBSan) in build-fuzz and runs
# each for a bounded time from its committed seed corpus, with leak detection; fails on any
# crash, leak, timeout or out-of-memory. New inputs go to a scratch corpus, not the committed
# one; a failing input is left as build-fuzz/<harness>-crash-* (or leak-/timeout-/oom-).
#   ci/fuzz.sh [SECONDS]      default 30 per harness (OPTCERT_FUZZ_TIME also sets it)
set -eu
cd "$(dirname "$0")/.."
secs=${1:-${OPTCERT_FUZZ_TIME:-30}}
build=${OPTCERT_FUZZ_BUILD:-build-fuzz}
harnesses="safetensors vectors results impl_table abi3"

CC=clang cmake -S . -B "$build" -DOPTCERT_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=""
for h in $harnesses; do targets="$targets fuzz_$h"; done
# shellcheck disable=SC2086 # one word per target
cmake --build "$build" -j"$(nproc)" --target $targets >/dev/null

status=0
for h in $harnesses; do
    scratch="$build/corpus-$h"
    mkdir -p "$scratch"
    echo "== fuzz_$h: $secs s"
    if ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "$build/conformance/fuzz/fuzz_$h" -max_total_time="$secs" -timeout=10 \
           -rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks=1 -max_len=262144 \
           -print_final_stats=1 -artifact_prefix="$build/$h-" \
           "$scratch" "conformance/fuzz/$h/corpus" >"$build/fuzz_$h.log" 2>&1; then
        grep -E '^(stat::number_of_executed_units|Done)' "$build/fuzz_$h.log" || true
    else
        status=1
        echo "fuzz_$h FAILED (log: $build/fuzz_$h.log):"
        grep -E 'ERROR|SUMMARY|Test unit written|runtime error|^artifact' "$build/fuzz_$h.log" | head -20
    fi
done
[ $status -eq 0 ] && echo "ci/fuzz.sh: no crash, leak or timeout"
exit $status
