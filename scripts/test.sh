#!/bin/sh
# Quick start, second command (and CI): dependencies, build, and the whole test suite.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
cd build
exec ctest --output-on-failure --parallel 2
