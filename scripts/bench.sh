#!/bin/sh
# Quick start, first command: dependencies, build, and the benchmark on the default device.
# Arguments go to clradix-bench (try --help).
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
exec build/bench/clradix-bench "$@"
