#!/bin/sh
# Installs the Debian packages that building, benchmarking and testing clradix need (among
# them Mesa's OpenCL, a third implementation the tests run on), then from PyPI into folders
# of the project's own: the Python tests' optional packages, and Intel's OpenCL runtime for
# CPUs, a second OpenCL implementation the tests run on.
# Idempotent: does nothing when everything is already installed.
set -eu

# Build and tests: compiler, CMake, the OpenCL loader and headers, POCL's CPU device, Check.
packages="cmake pkg-config gcc libc6-dev make ocl-icd-opencl-dev opencl-headers pocl-opencl-icd check"
# Benchmark: Boost.Compute's headers and a C++ compiler for its baseline; gnuplot for the plot.
packages="$packages g++ libboost-dev gnuplot-nox"
# Checks: oclgrind runs the kernels looking for data races and uninitialised memory.
packages="$packages oclgrind"
# Mesa's OpenCL (rusticl): its llvmpipe device runs work-items as SIMD lanes, as GPUs do.
packages="$packages mesa-opencl-icd"
# clradix_mpi: Open MPI's headers, libraries and mpirun.
packages="$packages libopenmpi-dev openmpi-bin"
# The Python package's tests and benchmark: numpy, pyopencl, pytest, and venv for pip.
packages="$packages python3 python3-numpy python3-pyopencl python3-pytest python3-venv"

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
fi
sh "$(dirname "$0")/python-extras.sh"  # on pyenv's Python 3.12 where it is, else Debian's python3
sh "$(dirname "$0")/intel-opencl.sh" /usr/bin/python3
