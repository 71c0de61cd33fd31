#!/bin/sh
# FAST-CUDA-ABI-1 / FAST-CUDA-DEV-1: `optcert certify --impl fast-cuda` exits 2 with "no CUDA device: ..."
# where the probe finds none, and conforms (exit 0) where it finds one.
#   certify.sh PROBE OPTCERT
probe=$1 optcert=$2
out=$("$optcert" certify --impl fast-cuda 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 15
if "$probe" >/dev/null; then
    echo "device present: expecting exit 0, got $rc"
    test "$rc" -eq 0
else
    echo "no device: expecting exit 2 and 'no CUDA device:', got $rc"
    test "$rc" -eq 2 && printf '%s\n' "$out" | grep -q '^optcert: no CUDA device: .'
fi
