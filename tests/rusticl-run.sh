#!/bin/sh
# Runs a test program on the llvmpipe device of Mesa's OpenCL (rusticl, Debian's
# mesa-opencl-icd), which runs work-items as SIMD lanes as GPUs do: turned on for this
# process alone (RUSTICL_ENABLE) and made the default device. Skipped (exit 77) with a
# message where there is no such device.
# Usage: rusticl-run.sh CLRADIX_BENCH PROGRAM [ARGUMENTS...]
set -u
bench=$1
shift
if ! RUSTICL_ENABLE=llvmpipe "$bench" --list 2>/dev/null | grep -q '^[0-9]*: rusticl / llvmpipe'; then
    echo "skipped: no llvmpipe device of Mesa's rusticl (scripts/install-deps.sh installs Debian's mesa-opencl-icd)"
    exit 77
fi
RUSTICL_ENABLE=llvmpipe CLRADIX_DEVICE="rusticl llvmpipe" exec "$@"
