#!/bin/sh
# Regenerates fast/bench/RESULTS.md (spec/fast.md §6, protocol): builds, then runs fast/bench/bench.py with
# 2 OpenMP threads under the virtual environment that has the most peers: /opt/optcert-ds
# (torch 2.15 + DeepSpeed, ci/setup-deepspeed.sh), else /opt/optcert-torch2
# (ci/setup-python.sh). Not part of ci/test: a benchmark, not a test. Extra arguments go to
# bench.py (e.g. --only limits,peers --out /tmp/r.md).
set -eu
cd "$(dirname "$0")/../.."
[ -f build/fast/liboptcert_fast_bench.so ] && [ -x build/fast/ns_bench ] || ci/build.sh
cmake --build build --target optcert_fast_bench ns_bench dist_muon_bench offload_bench \
    layout_dump >/dev/null
PY=/opt/optcert-torch2/bin/python
[ -x /opt/optcert-ds/bin/python ] && /opt/optcert-ds/bin/python -c 'import deepspeed' 2>/dev/null &&
    PY=/opt/optcert-ds/bin/python
# passive: each OpenMP runtime in the process (ours, torch's, DeepSpeed's) puts its threads to
# sleep after a parallel region instead of spinning into the next side of the pair
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" OMP_PROC_BIND="${OMP_PROC_BIND:-close}" \
    OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
exec "$PY" fast/bench/bench.py "$@"
