#!/bin/sh
# Every public name of include/clradix.h and include/clradix_mpi.h (functions, types,
# constants, macros, struct fields) must appear in docs/API.md, and every function must
# have a comment in its header right before its declaration (or its group's).
# Usage: api-doc-check.sh SOURCE_DIR
set -u
doc=$1/docs/API.md
status=0
function_count=0
name_count=0

check_header() {
    header=$1
    # Functions: the names after CLRADIX_API, up to the parenthesis.
    functions=$(sed -n 's/^CLRADIX_API[^(]*[ *]\(clradix_[a-z_]*\)(.*/\1/p' "$header")
    # Types, constants and macros of the API (not the headers' own guards and export macros).
    names=$(grep -oE '\b(clradix_[a-z_]+|CLRADIX_[A-Z0-9_]+)\b' "$header" | sort -u |
            grep -vE '^(CLRADIX_H|CLRADIX_MPI_H|CLRADIX_API|CLRADIX_SHARED|CLRADIX_BUILDING)$')
    # Fields of the public structs.
    fields=$(awk '/^typedef struct clradix_[a-z_]+ \{/ {inside = 1; next}
                  inside && /^\}/ {inside = 0}
                  inside {for (i = 1; i <= NF; ++i) if ($i ~ /^[a-z_]+[;,]$/) {sub(/[;,]$/, "", $i); print $i}}' "$header")

    for name in $names $fields; do
        grep -q "\b$name\b" "$doc" || { echo "docs/API.md does not mention $name"; status=1; }
    done

    # A comment ends on one of the three lines before each declaration (a group of
    # declarations may share the comment above the first).
    for f in $functions; do
        awk -v f="$f" '
            /\*\// {last_comment = NR}
            /^CLRADIX_API/ && $0 ~ ("[ *]" f "\\(") {
                if (NR - last_comment > 3 && NR - last_declaration > 3) {print "no comment before " f; exit 1}
                exit 0
            }
            /^CLRADIX_API/ {last_declaration = NR}' "$header" || status=1
    done
    function_count=$((function_count + $(echo $functions | wc -w)))
    name_count=$((name_count + $(echo $names $fields | wc -w)))
}

check_header "$1/include/clradix.h"
check_header "$1/include/clradix_mpi.h"
[ "$status" -eq 0 ] && echo "api docs: $function_count functions, $name_count names documented"
exit "$status"
