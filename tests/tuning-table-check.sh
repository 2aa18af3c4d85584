#!/bin/sh
# docs/tuning.md's table of the GPU rows' shapes must be what tests/tuning_table.c prints
# (the library's own fitting of each row and program variant to 48 and 64 KiB).
# Usage: tuning-table-check.sh TUNING_TABLE DOCS_TUNING_MD
set -eu
printed=$("$1")
listed=$(sed -n '/<!-- gpu-tuning-table -->/,/<!-- \/gpu-tuning-table -->/p' "$2" | sed '1d;$d')
if [ "$printed" != "$listed" ]; then
    echo "$2: the GPU tuning table differs from what the library does; it should read:"
    echo "$printed"
    exit 1
fi
echo "$2: the GPU tuning table matches the library"
