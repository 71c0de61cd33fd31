#!/bin/sh
# Certifies one hostile plugin (hostile.c) and checks the exit status and the certificate:
# misbehaviour is a FAIL of adam-torch naming the cause (VEC-PLUG-1 .. VEC-PLUG-3), a plugin
# that cannot be loaded is bad input (2), chatter on stdout stays out of the certificate
# (VEC-PLUG-4).
#   hostile_run.sh OPTCERT_BINARY PLUGIN CHECK
set -eu
optcert=$1 plugin=$2 check=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Under AddressSanitizer: let a SIGSEGV kill the child instead of becoming ASan's exit(1).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
export ASAN_OPTIONS
fail() {
    echo "$check: $*"
    echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"
    exit 1
}
run() { # expected-status optcert-arguments...
    want=$1
    shift
    set +e
    "$optcert" certify --impl "$plugin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    [ $rc -eq "$want" ] || fail "exit status $rc, expected $want"
}
has() { grep -Eq "$1" "$tmp/$2" || fail "no line matching '$1' in $2"; }
fails() { # cause [family]: the family's FAIL line with a tcId and the cause, and the verdict
    has "^  ${2:-adam-torch} tcId [0-9]+: FAIL: $1" out
    has '^verdict: DOES NOT CONFORM$' out
}
case $check in
segv) run 1 --family adam-torch; fails 'killed by signal 11 \(SIGSEGV\); [0-9]+ later cases not run' ;;
abort) run 1 --family adam-torch; fails 'killed by signal 6 \(SIGABRT\)' ;;
exit0) run 1 --family adam-torch; fails 'called exit\(0\)' ;;
exit1) run 1 --family adam-torch; fails 'called exit\(1\)' ;;
hang) run 1 --family adam-torch --timeout 2; fails 'timed out after 2 s' ;;
kill_self) run 1 --family adam-torch; fails 'killed by signal 9 \(SIGKILL\)' ;;
overrun) run 1 --family adam-torch; fails 'wrote past the end of its output p' ;;
write_g) run 1 --family adam-torch; fails 'wrote to its input g' ;;
oom) # 2 GiB under --memory 256: malloc fails (NULL written: SIGSEGV; a sanitizer's allocator
    # reports and ends the child instead); without the limit the plugin would conform
    run 1 --family adam-torch --memory 256
    fails '(killed by signal 11 \(SIGSEGV\)|ended with status [0-9]+ without its results).*; [0-9]+ later cases not run'
    ;;
bad_status) run 1 --family adam-torch; fails 'returned 1234, which is no oc_status' ;;
chatter)
    run 0 --family adam-torch
    has '^verdict: CONFORMS$' out
    has '^chatter: adam_step' err
    ! grep -q chatter "$tmp/out" || fail "the plugin's stdout is in the certificate"
    ;;
null_table) run 2 --family adam-torch; has 'no optcert_impl_v3\(\) \(or optcert_impl_v1\(\)\), or it returned NULL' err ;;
wrong_abi) run 2 --family adam-torch; has 'plugin ABI version 99' err ;;
load_segv) run 2 --family adam-torch; has 'cannot load plugin: .*ended: killed by signal 11 \(SIGSEGV\)' err ;;
load_hang) run 2 --family adam-torch --timeout 2; has 'cannot load plugin: .*ended: timed out after 2 s' err ;;
load_exit0) run 2 --family adam-torch; has 'cannot load plugin: .*ended: called exit\(0\)' err ;;
all_families) # the exit(0) plugin: adam-torch fails, the families after it are still certified
    run 1
    fails 'called exit\(0\)'
    has '^sgd-torch +torch +[1-9][0-9]* +0 ' out
    has '^lion-torch +torch +[1-9][0-9]* +0 ' out
    ;;
wrap_write_inputs|wrap_overrun) # hostile_wrap.c: the FAIL lines each file of wrap/ expects
    kind=${check#wrap_}
    grep -h "^ \* expect $kind " "$(dirname "$0")"/wrap/*.c | sed "s/^ \* expect $kind //; s/ \*\/$//" \
        >"$tmp/expect"
    [ -s "$tmp/expect" ] || fail "no file of hostile/wrap expects anything under $kind"
    while IFS= read -r line; do
        family=${line%%: *}
        run 1 --family "$family"; fails "${line#*: }" "$family"
    done <"$tmp/expect"
    ;;
no_isolation) # in process: optcert ends with status 1 and no certificate
    run 1 --family adam-torch --no-isolation
    has 'called exit\(0\) in adam-torch tcId [0-9]+; no certificate' err
    [ ! -s "$tmp/out" ] || fail "a certificate was printed"
    ;;
*) echo "unknown check $check"; exit 2 ;;
esac
