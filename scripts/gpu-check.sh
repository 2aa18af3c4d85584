#!/bin/sh
# One command for a Linux machine with an OpenCL GPU (NVIDIA's driver ships the ICD; AMD's
# and Intel's too): builds clradix, runs the device test suites on the GPU, then
# clradix-bench at 2^20 .. 2^28 for u32 keys, u64 keys and u32 -> u32 pairs, next to the
# vendor's own sort on the same GPU and sizes when Python has CuPy or PyTorch with CUDA
# (scripts/vendor_sort.py), and prints one table. Everything it writes goes to OUT.
#
# Usage: scripts/gpu-check.sh [--device SPEC] [--n LIST] [--runs R] [--suites LIST | --no-suites]
#                             [--build-dir DIR] [--no-build] [--out DIR]
#   --device   clradix's device spec (index or name substring, as CLRADIX_DEVICE); default:
#              CLRADIX_DEVICE, else the first GPU that clradix-bench --list shows
#   --n        sizes (default 2^20,2^22,2^24,2^26,2^28); --runs: timed sorts per size (10)
#   --suites   Check suites to run on the device (default: sort keys calls random hardening
#              segments topk)
#   --build-dir, --no-build   where to build (default build-gpu-check; paths are the caller's),
#              or use a build there
#   --out      results: suites.log, clradix-*.csv, vendor.csv, table.txt, clradix-engines.txt (the
#              strategies, segments and top-k at the largest size) (default BUILD_DIR/gpu-check)
set -eu
caller=$(pwd)
device=${CLRADIX_DEVICE:-}
sizes=2^20,2^22,2^24,2^26,2^28
runs=10
suites="sort keys calls random hardening segments topk"
build="build-gpu-check"
do_build=1
out=
while [ $# -gt 0 ]; do
    case $1 in
    --device) device=$2; shift 2 ;;
    --n) sizes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --suites) suites=$2; shift 2 ;;
    --no-suites) suites=; shift ;;
    --build-dir) build=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --out) out=$2; shift 2 ;;
    *) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
    esac
done
# Paths given are the caller's; the script works from the project root.
case $build in /*) ;; *) build=$caller/$build ;; esac
out=${out:-$build/gpu-check}
case $out in /*) ;; *) out=$caller/$out ;; esac
cd "$(dirname "$0")/.."

if [ "$do_build" = 1 ]; then
    testing=ON
    pkg-config --exists check 2>/dev/null || { testing=OFF; echo "gpu-check: Check is not installed: no test suites"; }
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=$testing >/dev/null
    cmake --build "$build" --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null
fi
bench=$build/bench/clradix-bench
mkdir -p "$out"

# The device: the first GPU unless told otherwise.
"$bench" --list | tee "$out/devices.txt"
if [ -z "$device" ]; then
    device=$(sed -n 's/^\([0-9][0-9]*\):.*(GPU.*/\1/p' "$out/devices.txt" | head -n 1)
    [ -n "$device" ] || { echo "gpu-check: no OpenCL GPU listed; pass --device to check another device"; exit 1; }
fi
CLRADIX_DEVICE=$device
export CLRADIX_DEVICE
echo "gpu-check: device $device"

# The device suites, on that device (CLRADIX_DEVICE picks it for every sorter they make).
suite_status="not run"
if [ -n "$suites" ]; then
    suite_status=passed
    : >"$out/suites.log"
    for suite in $suites; do
        if [ ! -x "$build/tests/test_$suite" ]; then
            suite_status="not run (no test programs in $build)"
            break
        fi
        echo "gpu-check: test_$suite" | tee -a "$out/suites.log"
        "$build/tests/test_$suite" >>"$out/suites.log" 2>&1 || suite_status=FAILED
        tail -n 1 "$out/suites.log"
    done
fi

# clradix: u32 and u64 keys, u32 -> u32 pairs; every result is verified by the benchmark.
bench_status=passed
"$bench" --device "$device" --type u32,u64 --n "$sizes" --runs "$runs" --no-qsort --no-boost \
    --csv "$out/clradix-keys.csv" || bench_status=FAILED
"$bench" --device "$device" --type u32 --pairs 4 --n "$sizes" --runs "$runs" --no-qsort --no-boost \
    --csv "$out/clradix-pairs.csv" || bench_status=FAILED
# Side by side at the largest size: both flat strategies, a segmented sort and top-k.
"$bench" --device "$device" --type u32 --n "${sizes##*,}" --runs "$runs" --no-qsort --no-boost \
    --strategy default,lsd,partition --segments 4096 --topk 1024,65536 >"$out/clradix-engines.txt" \
    || bench_status=FAILED

# The vendor's sort on the same GPU and sizes.
vendor_status="not available"
rm -f "$out/vendor-keys.csv" "$out/vendor-pairs.csv"
if command -v python3 >/dev/null 2>&1 \
    && python3 scripts/vendor_sort.py --type u32,u64 --pairs 0 --n "$sizes" --runs "$runs" --csv "$out/vendor-keys.csv" \
    && python3 scripts/vendor_sort.py --type u32 --pairs 4 --n "$sizes" --runs "$runs" --csv "$out/vendor-pairs.csv"; then
    vendor_status=measured
fi
[ -f "$out/vendor-keys.csv" ] || echo "impl,type,value_size,n,median_ms,mkeys_per_s" >"$out/vendor-keys.csv"
[ -f "$out/vendor-pairs.csv" ] || echo "impl,type,value_size,n,median_ms,mkeys_per_s" >"$out/vendor-pairs.csv"

# One table: clradix's median next to each vendor sort's, same type, values and n.
{
    echo "device $device: $(awk -F, 'NR == 2 { print $2 }' "$out/clradix-keys.csv" 2>/dev/null)"
    printf '%-5s %-6s %12s %12s %10s   %-6s %12s %10s %8s\n' type values n "clradix ms" Mkeys/s vendor "ms" Mkeys/s ratio
    cat "$out/vendor-keys.csv" "$out/vendor-pairs.csv" "$out/clradix-keys.csv" "$out/clradix-pairs.csv" | awk -F, '
        $1 == "impl" || $1 == "device" { next }
        NF == 6 { vendor[$2 "," $3 "," $4] = vendor[$2 "," $3 "," $4] " " $1 ":" $5 ":" $6; next }
        $3 == "clradix" { key = $4 "," $5 "," $6; order[++count] = key; ms[key] = $10; rate[key] = $13 }
        END {
            for (i = 1; i <= count; ++i) {
                split(order[i], k, ",")
                values = k[2] == 0 ? "-" : k[2] "B"
                line = sprintf("%-5s %-6s %12d %12.3f %10.1f", k[1], values, k[3], ms[order[i]], rate[order[i]])
                n = split(vendor[order[i]], v, " ")
                if (n == 0) { print line "   -"; continue }
                for (j = 1; j <= n; ++j) {
                    split(v[j], f, ":")
                    printf "%s   %-6s %12.3f %10.1f %7.2fx\n", j == 1 ? line : sprintf("%49s", ""), f[1], f[2], f[3],
                           f[2] / ms[order[i]]
                }
            }
        }'
    echo "ratio: the vendor's median time / clradix's (above 1: clradix is faster)"
    echo "device suites: $suite_status; benchmark results verified: $bench_status; vendor sort: $vendor_status"
} | tee "$out/table.txt"
cat "$out/clradix-engines.txt" 2>/dev/null || true
[ "$suite_status" != FAILED ] && [ "$bench_status" = passed ]
