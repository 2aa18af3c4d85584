#!/bin/sh
# Runs every case of tests/kernel_check.c under oclgrind with its race and
# uninitialised-memory checks, each in a process of its own (see kernel_check.c), and fails
# when a case fails or oclgrind reported anything: oclgrind itself exits 0 either way.
# Usage: oclgrind-check.sh KERNEL_CHECK
set -u
program=$1
command -v oclgrind >/dev/null 2>&1 || { echo "oclgrind is not installed (scripts/install-deps.sh installs it)"; exit 1; }
count=$("$program" --count) || exit 1
failed=0
reports=0
i=0
while [ "$i" -lt "$count" ]; do
    log=oclgrind-case-$i.log
    rm -f "$log"
    oclgrind --data-races --uninitialized --log "$log" "$program" "$i" || failed=1
    if [ -s "$log" ]; then
        n=$(grep -c '^[A-Z]' "$log")
        reports=$((reports + n))
        echo "oclgrind reported $n problem(s) in case $i:"
        head -n 40 "$log"
        failed=1
    fi
    i=$((i + 1))
done
echo "oclgrind: $count cases, $reports reports"
exit "$failed"
