#!/bin/sh
# The examples in README.md and docs/*.md, run so that they cannot rot. A block is an
# example when the line right before its fence is `<!-- example: NAME -->`; every C and
# Python block there must be one (docs/API.md's declarations aside). Each example checks
# its own result and exits non-zero when it is wrong.
#   c       C blocks, compiled with $DOC_CC against $DOC_LIBS and run
#   mpi     C blocks that include clradix_mpi.h, compiled with $DOC_MPICC against
#           $DOC_MPI_LIBS and run by $DOC_MPIEXEC (its ranks)
#   python  Python blocks, run by $DOC_PYTHON with the package on PYTHONPATH
#   sh      sh blocks, run by sh -e in a folder whose build/ is $DOC_BUILD_DIR
# Each mode fails when it finds no example (so that nothing can pass by being skipped),
# and reports a skip (77) only where there is no OpenCL device, or no MPI, numpy or
# pyopencl for the blocks that need them; C blocks are still compiled then.
# Usage: doc-examples-check.sh MODE SOURCE_DIR CLRADIX_BENCH
set -u
mode=$1
source=$2
bench=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Extraction: NAME.c, NAME.py or NAME.sh in $work, and a line "LANGUAGE NAME FILE:LINE" for each.
(cd "$source" && awk -v dir="$work" '
    function fail(message) { print FILENAME ":" FNR ": " message > "/dev/stderr"; failed = 1 }
    FNR == 1 { marker = -1; inside = 0 }
    inside {                                    # in a block, up to its closing fence
        if ($0 ~ /^```/) { if (out != "") close(out); inside = 0; out = ""; next }
        if (out != "") print > out
        next
    }
    /^<!-- example: [A-Za-z0-9_]+ -->$/ { marker = FNR; name = $3; next }
    /^```/ {
        inside = 1
        fence = substr($0, 4)
        if (marker == FNR - 1) {
            extension = fence == "c" ? "c" : fence == "python" ? "py" : fence == "sh" ? "sh" : ""
            if (extension == "") fail("example " name ": a block of c, python or sh expected, not \"" fence "\"")
            else if (name in seen) fail("example " name ": the name is taken (" seen[name] ")")
            else {
                seen[name] = FILENAME ":" FNR
                out = dir "/" name "." extension
                printf "" > out
                print fence, name, FILENAME ":" FNR
            }
        } else if ((fence == "c" || fence == "python") && FILENAME != "docs/API.md")
            fail("a " fence " block without an <!-- example: NAME --> line before it")
        next
    }
    marker == FNR - 1 { fail("example " name ": no block right after its marker") }
    END { if (failed) exit 1 }
' README.md docs/*.md) > "$work/examples.txt" || exit 1

# The examples of this mode (C blocks for the MPI library go to mpi, the others to c).
: > "$work/selected.txt"
while read -r language name place; do
    case $language in
    c) if grep -q '#include <clradix_mpi.h>' "$work/$name.c"; then kind=mpi; else kind=c; fi ;;
    python) kind=python ;;
    sh) kind=sh ;;
    esac
    [ "$kind" = "$mode" ] && echo "$name $place" >> "$work/selected.txt"
done < "$work/examples.txt"
count=$(wc -l < "$work/selected.txt")
if [ "$count" -eq 0 ]; then
    echo "no $mode examples found in README.md or docs/*.md"
    exit 1
fi

status=0
passed=0
# Runs one example (its command after the name and place), showing its output on failure.
run() {
    name=$1 place=$2
    shift 2
    if "$@" < /dev/null > "$work/$name.out" 2>&1; then
        echo "$place: example $name: passed"
        passed=$((passed + 1))
    else
        echo "$place: example $name: FAILED (exit status $?), output:"
        cat "$work/$name.out"
        status=1
    fi
}
no_device() {
    "$bench" --list 2>/dev/null | grep -q '^0:' && return 1
    echo "no OpenCL device: the $mode examples were not run"
    return 0
}

case $mode in
c|mpi)
    if [ "$mode" = c ]; then compile="$DOC_CC" libraries="$DOC_LIBS"; else compile="$DOC_MPICC" libraries="$DOC_MPI_LIBS"; fi
    while read -r name place; do
        # shellcheck disable=SC2086 # the compiler's command line, word by word
        if ! $compile -o "$work/$name" "$work/$name.c" $libraries > "$work/$name.out" 2>&1; then
            echo "$place: example $name does not compile:"
            cat "$work/$name.out"
            status=1
        fi
    done < "$work/selected.txt"
    [ "$status" -ne 0 ] && exit 1
    no_device && exit 77
    while read -r name place; do
        if [ "$mode" = c ]; then
            run "$name" "$place" "$work/$name"
        else
            # shellcheck disable=SC2086
            run "$name" "$place" $DOC_MPIEXEC "$work/$name"
        fi
    done < "$work/selected.txt"
    ;;
python)
    "$DOC_PYTHON" -c 'import numpy, pyopencl' 2>/dev/null ||
        { echo "numpy or pyopencl missing for $DOC_PYTHON: the Python examples were not run"; exit 77; }
    no_device && exit 77
    while read -r name place; do
        run "$name" "$place" env PYTHONPATH="$source/python" "$DOC_PYTHON" "$work/$name.py"
    done < "$work/selected.txt"
    ;;
sh)
    no_device && exit 77
    # The commands as the docs write them, from the repository's root: build/ is the build
    # tree, python3 the tests' own (blocks that run it need its numpy and pyopencl).
    mkdir "$work/run" "$work/bin"
    ln -s "$DOC_BUILD_DIR" "$work/run/build"
    for dir in bench scripts python; do ln -s "$source/$dir" "$work/run/$dir"; done
    python_ok=0
    if [ -n "${DOC_PYTHON:-}" ] && "$DOC_PYTHON" -c 'import numpy, pyopencl' 2>/dev/null; then
        ln -s "$DOC_PYTHON" "$work/bin/python3"
        python_ok=1
    fi
    while read -r name place; do
        if [ "$python_ok" -eq 0 ] && grep -q python3 "$work/$name.sh"; then
            echo "$place: example $name: not run (no python3 with numpy and pyopencl)"
            continue
        fi
        run "$name" "$place" env PATH="$work/bin:$PATH" PYTHONPATH="$source/python" \
            sh -c 'cd "$0" && exec sh -e "$1"' "$work/run" "$work/$name.sh"
    done < "$work/selected.txt"
    ;;
*)
    echo "unknown mode $mode"
    exit 2
    ;;
esac
[ "$status" -eq 0 ] && echo "$passed of $count $mode examples passed"
exit "$status"
