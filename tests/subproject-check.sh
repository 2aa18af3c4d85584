#!/bin/sh
# clradix as a subproject of a CMake project, from its source folder: add_subdirectory (the
# consumer's default, static libraries) and FetchContent_Declare(SOURCE_DIR) /
# FetchContent_MakeAvailable (with the consumer's BUILD_SHARED_LIBS=ON). Each consumer must
# build and sort (with MPI given: the clradix_mpi consumer too, on two ranks), and clradix
# must leave the consumer's project as it was: no tests, benchmark or examples built, no
# install rules, BUILD_SHARED_LIBS and CMAKE_BUILD_TYPE not set in the consumer's cache.
# Usage: subproject-check.sh SOURCE_DIR [MPIEXEC [MPIEXEC_FLAGS]]
set -eu
source=$1
mpiexec=${2:-}
mpiexec_flags=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # a consumer's exit status 77 means no device: the check is skipped
    set +e
    "$@"
    status=$?
    set -e
    [ "$status" -eq 0 ] || exit "$status"
}

for way in add_subdirectory FetchContent; do
    build=$work/$way
    shared=""
    [ "$way" = FetchContent ] && shared=-DBUILD_SHARED_LIBS=ON
    # shellcheck disable=SC2086 # empty or one word
    cmake -S "$source/tests/consumer" -B "$build" -DCONSUMER_WAY=$way -DCONSUMER_SOURCE="$source" $shared >"$work/log" 2>&1 \
        || { cat "$work/log"; exit 1; }
    cmake --build "$build" --parallel 2 >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
    run "$build/consumer"
    library=libclradix.a  # the library as the consumer's BUILD_SHARED_LIBS says
    [ -n "$shared" ] && library=libclradix.so
    find "$build" -name "$library" | grep -q . || { echo "$way: no $library, though the consumer asked for it"; exit 1; }
    cache=$build/CMakeCache.txt
    if [ -z "$shared" ] && grep -q '^BUILD_SHARED_LIBS:' "$cache"; then
        echo "$way: clradix put BUILD_SHARED_LIBS into the consumer's cache"; exit 1
    fi
    grep -q '^CMAKE_BUILD_TYPE:STRING=$' "$cache" || { echo "$way: CMAKE_BUILD_TYPE set: $(grep '^CMAKE_BUILD_TYPE' "$cache")"; exit 1; }
    built=$(find "$build" -path '*/CMakeFiles' -prune -o -type f \( -name 'clradix-bench' -o -name 'test_*' -o -name 'example_*' \) -perm -u+x -print)
    [ -z "$built" ] || { echo "$way: built besides the library: $built"; exit 1; }
    find "$build" -name CTestTestfile.cmake | grep -q . && { echo "$way: CTest files in the consumer's build"; exit 1; }
    cmake --install "$build" --prefix "$work/prefix-$way" >/dev/null
    installed=$(cd "$work/prefix-$way" && find . -type f ! -name consumer ! -name mpi_consumer)
    [ -z "$installed" ] || { echo "$way: clradix installed files of its own: $installed"; exit 1; }
    if [ -n "$mpiexec" ]; then
        [ -x "$build/mpi_consumer" ] || { echo "$way: no clradix::clradix_mpi though MPI is installed"; exit 1; }
        # shellcheck disable=SC2086 # the flags are words
        run "$mpiexec" -n 2 $mpiexec_flags "$build/mpi_consumer"
    fi
    echo "subproject check: $way built clradix::clradix${mpiexec:+ and clradix::clradix_mpi}, sorted, changed nothing of the consumer's"
done
