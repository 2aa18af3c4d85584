#!/bin/sh
# What a GPU executes to sort, counted: each GPU row of the tuning table runs its sorts under
# `oclgrind --inst-counts` with the limits of a real GPU of that row (local memory, largest
# work-group, compute units, so that the grid and what depends on it are that GPU's), and
# the counts of every kernel launch of one sort are summed and divided by the keys.
# Prints a Markdown table: per key, work-item instructions (llvm.lifetime markers left
# out), barriers (once per work-item that reaches one), local-memory bytes and accesses
# (loads and stores; atomics apart), global-memory bytes, atomics (local and global); and
# the launches per sort. docs/performance.md ("On a GPU") shows it and what it leaves out.
# Usage: gpu-work-count.sh [-b BUILD_DIR] [-n KEYS] [-r ROWS] [-c CASES] [-l MOST]
#   ROWS: names of the limits below (default: all); CASES: work_count's cases (default:
#   u32 u32-pairs u64 segments topk); KEYS: default 2^18 (262144); MOST: fail when a sort
#   executes more instructions per key (the test suite's check).
# Exits 1 when a sort is wrong, oclgrind fails or a sort passes MOST.
set -eu
build=build
n=262144
rows="nvidia amd intel other"
cases="u32 u32-pairs u64 segments topk"
most=0
while getopts b:n:r:c:l: opt; do
    case $opt in
        b) build=$OPTARG ;;
        n) n=$OPTARG ;;
        r) rows=$OPTARG ;;
        c) cases=$OPTARG ;;
        l) most=$OPTARG ;;
        *) exit 2 ;;
    esac
done
program=$build/tests/work_count
[ -x "$program" ] || { echo "gpu-work-count: $program is missing (build the tests first)" >&2; exit 1; }
command -v oclgrind >/dev/null 2>&1 || { echo "gpu-work-count: oclgrind is not installed" >&2; exit 1; }

# A real device of each row: the row's devices (as work_count --rows names them), local
# memory, largest work-group and compute units as its OpenCL driver reports them.
limits_of() {
    case $1 in
        nvidia) echo "NVIDIA 49152 1024 132 H100 SXM" ;;
        amd) echo "AMD 65536 256 110 MI250X (one die)" ;;
        intel) echo "Intel 65536 1024 512 Arc A770" ;;
        other) echo "other 32768 256 8 Apple M1" ;;
        *) return 1 ;;
    esac
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "| row (device: local memory, work-group, compute units) | sort | instructions | barriers | local bytes | local accesses | global bytes | atomics | launches |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for name in $rows; do
    set -- $(limits_of "$name")
    match=$1 local=$2 wg=$3 units=$4
    shift 4
    device="$*"
    row=$("$program" --rows | awk -v m="$match" 'index($0, m) { print $1; exit }')
    [ -n "$row" ] || { echo "gpu-work-count: no row for $match" >&2; exit 1; }
    for c in $cases; do
        if ! oclgrind --inst-counts --compute-units "$units" --local-mem-size "$local" --max-wgsize "$wg" \
                "$program" "$row" "$c" "$n" >"$log" 2>&1; then
            cat "$log" >&2
            exit 1
        fi
        awk -v n="$n" -v row="$device ($((local / 1024)) KiB, $wg, $units)" -v c="$c" -v most="$most" '
            /^Instructions executed for kernel/ { launches++; next }
            /^ *[0-9]+ - / {
                count = $1
                if ($0 ~ /llvm\.lifetime/) next
                instructions += count
                if ($0 ~ /_Z7barrierj/) barriers += count
                if ($0 ~ /(load|store) local/) { local_accesses += count; local_bytes += bytes_of($0) }
                if ($0 ~ /(load|store) global/) global_bytes += bytes_of($0)
                if ($0 ~ /call _Z[0-9]*atom/) atomics += count
                if ($0 ~ /async_work_group|prefetch/) copies += count
            }
            function bytes_of(line) { sub(/.*\(/, "", line); sub(/ bytes.*/, "", line); return line + 0 }
            END {
                if (copies) { print "gpu-work-count: built-in copies, not counted" > "/dev/stderr"; exit 1 }
                printf "| %s | %s | %.0f | %.2f | %.0f | %.1f | %.1f | %.2f | %d |\n", row, c, instructions / n,
                       barriers / n, local_bytes / n, local_accesses / n, global_bytes / n, atomics / n, launches
                if (most && instructions / n > most) {
                    print "gpu-work-count: " c ": more than " most " instructions per key" > "/dev/stderr"
                    exit 1
                }
            }' "$log"
    done
done
