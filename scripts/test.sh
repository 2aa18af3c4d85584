#!/bin/sh
# Quick start, second command (and CI): dependencies, build, and the whole test suite:
# the Check suites on POCL's pthread and basic devices, the fault-injection suite, the
# kernels under oclgrind and the benchmark's smoke test (build/); then the same suites
# again with the host code under AddressSanitizer and UndefinedBehaviorSanitizer
# (build-sanitize/).
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
jobs=$(nproc 2>/dev/null || echo 2)
status=0
ctest --test-dir build --output-on-failure --parallel 2 || status=1

# (no Boost.Compute baseline there: the benchmark is not run under the sanitizers, and its
# C++ takes a core a minute to compile with them)
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLRADIX_SANITIZE=ON -DCLRADIX_BENCH_BOOST=OFF >/dev/null
cmake --build build-sanitize --parallel "$jobs"
ctest --test-dir build-sanitize --output-on-failure --parallel 2 || status=1
exit "$status"
