#!/bin/sh
# Runs a test program on Intel's CPU runtime as scripts/intel-opencl.sh installed it: its
# ICD folder (which also names the system's drivers) in OCL_ICD_VENDORS, its device as the
# default. Skipped (exit 77) with a message where it is not installed.
# Usage: intel-run.sh PROGRAM [ARGUMENTS...]
set -u
dir=${CLRADIX_INTEL_OPENCL:-${XDG_DATA_HOME:-$HOME/.local/share}/clradix/intel-opencl}
if [ ! -f "$dir/venv/lib/libintelocl.so" ] || [ ! -d "$dir/vendors" ]; then
    echo "skipped: Intel's CPU runtime is not installed at $dir (scripts/install-deps.sh installs it from PyPI)"
    exit 77
fi
OCL_ICD_VENDORS=$dir/vendors CLRADIX_DEVICE="Intel(R) OpenCL" exec "$@"
