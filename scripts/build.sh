#!/bin/sh
# Installs the dependencies (when missing), then configures and builds clradix in build/.
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --parallel "$(nproc 2>/dev/null || echo 2)"
