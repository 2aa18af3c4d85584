#!/bin/sh
# Installs the build into a temporary prefix and builds tests/consumer against it three
# ways: find_package with the shared library, with the static one, and pkg-config; each
# consumer must run and sort. Also: the shared library's SONAME carries the major version,
# and it exports only clradix_* symbols. Where clradix_mpi is installed (MPIEXEC given): an
# MPI consumer through find_package(clradix COMPONENTS mpi) and through pkg-config and
# mpicc, each run on two ranks. With CLRADIX_PYTHON and CLRADIX_PYTHON_INSTALL_DIR set: the
# installed Python package, which must find the installed library by itself.
# Usage: install-check.sh BUILD_DIR SOURCE_DIR [MPIEXEC [MPIEXEC_FLAGS]]
set -eu
build=$1
source=$2
mpiexec=${3:-}
mpiexec_flags=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$(dirname "$(find "$prefix" -name 'libclradix.so.*.*.*' | head -n 1)")

readelf -d "$lib"/libclradix.so | grep -q "SONAME.*libclradix.so.[0-9]*\]" || { echo "no versioned SONAME"; exit 1; }
others=$(nm -D --defined-only "$lib"/libclradix.so | awk '$2 ~ /[TDBR]/ && $3 !~ /^clradix_/ {print $3}')
[ -z "$others" ] || { echo "exported besides clradix_*: $others"; exit 1; }

run() {  # a consumer's exit status 77 means no device: the check is skipped
    set +e
    LD_LIBRARY_PATH=$lib "$@"
    status=$?
    set -e
    [ "$status" -eq 0 ] || exit "$status"
}

for linkage in OFF ON; do
    cmake -S "$source/tests/consumer" -B "$work/cmake-$linkage" -DCMAKE_PREFIX_PATH="$prefix" \
          -DCONSUMER_STATIC=$linkage >/dev/null
    cmake --build "$work/cmake-$linkage" >/dev/null
    run "$work/cmake-$linkage/consumer"
done

PKG_CONFIG_PATH=$lib/pkgconfig
export PKG_CONFIG_PATH
cc -o "$work/pkg-consumer" "$source/tests/consumer/consumer.c" $(pkg-config --cflags --libs clradix)
run "$work/pkg-consumer"
# The Python package next to the library: found through the installation's prefix alone.
if [ -n "${CLRADIX_PYTHON_INSTALL_DIR:-}" ] && "$CLRADIX_PYTHON" -c "import numpy" 2>/dev/null; then
    (cd "$work" && env -u CLRADIX_LIBRARY PYTHONPATH="$prefix/$CLRADIX_PYTHON_INSTALL_DIR" "$CLRADIX_PYTHON" -c '
import numpy, clradix, sys
path, how = clradix.library_path()
assert how == "the installation'"'"'s prefix" and path.startswith(sys.argv[1]), (path, how)
assert list(clradix.sort(numpy.array([3, 1, 2], dtype=numpy.int64))) == [1, 2, 3]
print("install check: the Python package sorted with", path)' "$prefix")
fi
[ -z "$mpiexec" ] && { echo "install check: find_package (shared, static) and pkg-config consumers built and sorted"; exit 0; }

others=$(nm -D --defined-only "$lib"/libclradix_mpi.so | awk '$2 ~ /[TDBR]/ && $3 !~ /^clradix_mpi_/ {print $3}')
[ -z "$others" ] || { echo "clradix_mpi exports besides clradix_mpi_*: $others"; exit 1; }
cmake -S "$source/tests/consumer" -B "$work/cmake-mpi" -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_MPI=ON >/dev/null
cmake --build "$work/cmake-mpi" >/dev/null
# shellcheck disable=SC2086 # the flags are words
run "$mpiexec" -n 2 $mpiexec_flags "$work/cmake-mpi/consumer"
mpicc -o "$work/pkg-mpi-consumer" "$source/tests/consumer/mpi_consumer.c" $(pkg-config --cflags --libs clradix_mpi)
# shellcheck disable=SC2086
run "$mpiexec" -n 2 $mpiexec_flags "$work/pkg-mpi-consumer"
echo "install check: find_package (shared, static, mpi), pkg-config and mpicc consumers built and sorted"
