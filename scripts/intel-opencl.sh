#!/bin/sh
# Intel's OpenCL runtime for CPUs (a vendor driver with its own compiler, next to POCL),
# from PyPI, pinned, in a virtual environment of the project's own (never the system's),
# with an ICD folder that names it and the system's drivers. The tests run suites on it
# through that folder; where PyPI cannot be reached it says so, leaves nothing behind, and
# those tests are reported skipped. The library itself never depends on it.
# Usage: intel-opencl.sh [PYTHON]. The folder: CLRADIX_INTEL_OPENCL, else
# ${XDG_DATA_HOME:-~/.local/share}/clradix/intel-opencl (tests/intel-run.sh looks in the same
# place). To use it: OCL_ICD_VENDORS=<folder>/vendors; the device is "Intel(R) OpenCL".
set -u
python=${1:-python3}
dir=${CLRADIX_INTEL_OPENCL:-${XDG_DATA_HOME:-$HOME/.local/share}/clradix/intel-opencl}
# The runtime, its compiler's libraries (libsvml) and what they pull in, every version pinned.
pins="intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 intel-cmplr-lic-rt==2026.2.0 tbb==2023.2.0 tcmlib==1.6.0"

# The ICD folder: Intel's runtime by its absolute path (it finds its own libraries through
# its RUNPATH, so no LD_LIBRARY_PATH, which would also pick up the venv's libOpenCL.so),
# and links to the system's drivers, so that one process sees POCL and Intel together.
write_vendors() {
    rm -rf "$dir/vendors"
    mkdir -p "$dir/vendors"
    echo "$dir/venv/lib/libintelocl.so" > "$dir/vendors/intel-cpu.icd"
    for icd in /etc/OpenCL/vendors/*.icd; do
        [ -e "$icd" ] && ln -s "$icd" "$dir/vendors/system-$(basename "$icd")"
    done
    return 0
}

case $(uname -m) in
    x86_64) ;;
    *) echo "intel-opencl: Intel's CPU runtime is for x86-64 only; its tests will be skipped" >&2; exit 0 ;;
esac
if [ -f "$dir/venv/lib/libintelocl.so" ] && [ "$(cat "$dir/clradix-pins" 2>/dev/null)" = "$pins" ]; then
    write_vendors
    exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
# shellcheck disable=SC2086  # the pins are words
if "$python" -m venv "$dir/venv" \
    && "$dir/venv/bin/python" -m pip install -q --disable-pip-version-check --no-cache-dir --timeout 20 --retries 1 \
        $pins >&2 \
    && [ -f "$dir/venv/lib/libintelocl.so" ]; then
    echo "$pins" > "$dir/clradix-pins"
    write_vendors
    echo "intel-opencl: $pins in $dir (OCL_ICD_VENDORS=$dir/vendors)" >&2
else
    rm -rf "$dir"
    echo "intel-opencl: could not install $pins from PyPI; the tests on Intel's CPU runtime will be skipped" >&2
fi
exit 0
