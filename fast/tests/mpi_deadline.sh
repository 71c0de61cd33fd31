#!/bin/sh
# The MPI engine's deadline (fast/comm/mpi.c): rank 1 of NP stops (SIGSTOP) or is killed
# (SIGKILL) in the middle of the collectives; every other rank must print which collective
# timed out and that rank 1 did not join it, and end the job through MPI_Abort (status 3),
# within the deadline (OPTCERT_COMM_TIMEOUT=3 s) plus slack. The run is bounded by timeout;
# afterwards no rank process is left (a stopped one gets SIGCONT and SIGKILL) and /dev/shm
# holds no new segment.
#   mpi_deadline.sh MPIEXEC "FLAGS" PROGRAM stop|kill NP
# A killed rank normally makes Open MPI's mpiexec end the job itself, before the engine could
# see anything: the kill case runs with --enable-recovery so that the survivors are left to
# the engine (mpiexec then exits 0 after their MPI_Abort, so its status is not checked there;
# the stop case checks it is the abort's 3).
set -u
mpiexec=$1 flags=$2 prog=$3 mode=$4 np=$5
deadline=3 slack=20
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ls /dev/shm >"$tmp/shm.before"
extra=""
[ "$mode" = kill ] && extra="--enable-recovery"
start=$(date +%s)
# shellcheck disable=SC2086 # flags are words
OPTCERT_COMM_TIMEOUT=$deadline OMP_NUM_THREADS=1 timeout -k 5 $((deadline + slack + 30)) \
    "$mpiexec" $flags $extra -n "$np" "$prog" "$mode" 1 "$tmp" >"$tmp/out" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
cat "$tmp/out"
fail=0
# clean up first: any rank still there (stopped or not) is continued and killed
sleep 1
for f in "$tmp"/rank.*; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null && grep -q mpi_deadline "/proc/$pid/cmdline" 2>/dev/null; then
        echo "mpi_deadline.sh: rank process $pid ($f) left behind; killing it"
        kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
        fail=1
    fi
done
sleep 1
ls /dev/shm >"$tmp/shm.after"
if ! diff "$tmp/shm.before" "$tmp/shm.after" >"$tmp/shm.diff"; then
    if grep -q '^>' "$tmp/shm.diff"; then
        echo "mpi_deadline.sh: new entries in /dev/shm:"; grep '^>' "$tmp/shm.diff"
        fail=1
    fi
fi
[ $rc -eq 124 ] || [ $rc -eq 137 ] && { echo "mpi_deadline.sh: mpiexec hung (killed by timeout)"; fail=1; }
[ "$mode" = stop ] && [ $rc -ne 3 ] && { echo "mpi_deadline.sh: mpiexec status $rc, not 3 (MPI_Abort)"; fail=1; }
grep -Eq "^optcert comm: rank [02]: (allreduce_sum|allreduce_max_int|reduce_scatter_sum|allgather) \(MPI_I[a-z_]*\) \(collective #[0-9]+ of a group of $np\) timed out after $deadline s \(OPTCERT_COMM_TIMEOUT\): rank 1 did not join it" "$tmp/out" ||
    { echo "mpi_deadline.sh: no survivor named rank 1 and the collective"; fail=1; }
grep -q "every collective completed" "$tmp/out" && { echo "mpi_deadline.sh: a rank finished"; fail=1; }
[ $elapsed -le $((deadline + slack)) ] || { echo "mpi_deadline.sh: took $elapsed s"; fail=1; }
echo "mpi_deadline.sh: $mode np=$np: mpiexec status $rc after $elapsed s: $([ $fail -eq 0 ] && echo ok || echo FAILED)"
exit $fail
