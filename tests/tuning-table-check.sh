#!/bin/sh
# The README's table of the GPU rows' shapes must be what tests/tuning_table.c prints
# (the library's own fitting of each row and program variant to 48 and 64 KiB).
# Usage: tuning-table-check.sh TUNING_TABLE README
set -eu
printed=$("$1")
listed=$(sed -n '/<!-- gpu-tuning-table -->/,/<!-- \/gpu-tuning-table -->/p' "$2" | sed '1d;$d')
if [ "$printed" != "$listed" ]; then
    echo "README.md's GPU tuning table differs from what the library does; it should read:"
    echo "$printed"
    exit 1
fi
echo "README.md's GPU tuning table matches the library"
