#!/bin/sh
# Runs every case of tests/kernel_check.c under oclgrind with its race and
# uninitialised-memory checks, each in a process of its own and with the device limits the
# case asks for (see kernel_check.c), and fails when a case fails or oclgrind reported
# anything: oclgrind itself exits 0 either way.
# Usage: oclgrind-check.sh KERNEL_CHECK OCLGRIND_REUSE [PART PARTS]: with PART and PARTS,
# only the cases i with i % PARTS == PART (so that parts run side by side).
set -u
program=$1
reuse=$2
part=${3:-0}
parts=${4:-1}
command -v oclgrind >/dev/null 2>&1 || { echo "oclgrind is not installed (scripts/install-deps.sh installs it)"; exit 1; }

# Whether this oclgrind still misreports buffers at reused addresses (tests/oclgrind-reuse.c).
rm -f oclgrind-reuse.log
oclgrind --uninitialized --log oclgrind-reuse.log "$reuse" || exit 1
if [ -s oclgrind-reuse.log ]; then
    echo "oclgrind misreports buffers at reused addresses ($(grep -c '^[A-Z]' oclgrind-reuse.log) false reports" \
         "without clradix): kernel_check holds buffer releases"
else
    echo "oclgrind no longer misreports buffers at reused addresses: kernel_check need not hold buffer releases"
fi
count=$("$program" --count) || exit 1
failed=0
reports=0
i=0
while [ "$i" -lt "$count" ]; do
    if [ $((i % parts)) -ne "$part" ]; then
        i=$((i + 1))
        continue
    fi
    log=oclgrind-case-$i.log
    rm -f "$log"
    # shellcheck disable=SC2046  # the options are words
    oclgrind --data-races --uninitialized --log "$log" $("$program" --options "$i") "$program" "$i" || failed=1
    if [ -s "$log" ]; then
        n=$(grep -c '^[A-Z]' "$log")
        reports=$((reports + n))
        echo "oclgrind reported $n problem(s) in case $i:"
        head -n 40 "$log"
        failed=1
    fi
    i=$((i + 1))
done
echo "oclgrind: cases $part of every $parts of $count, $reports reports"
exit "$failed"
