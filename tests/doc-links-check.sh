#!/bin/sh
# Every relative link of README.md, docs/*.md and python/README.md must name a file that
# exists and, with #anchor, a heading of that file (or of its own, for a bare #anchor),
# so that moving a section cannot leave a link behind. Anchors as GitHub makes them: the
# heading in lower case, punctuation dropped, spaces as hyphens, -1, -2 ... after repeats.
# Usage: doc-links-check.sh SOURCE_DIR
set -u
cd "$1" || exit 1
status=0
count=0

# The anchors of a markdown file's headings, one a line.
anchors() {
    awk '/^```/ { inside = !inside; next }
         !inside && /^#+ / {
             text = tolower($0)
             sub(/^#+ /, "", text)
             gsub(/[^a-z0-9 _-]/, "", text)
             gsub(/ /, "-", text)
             if (text in seen) { seen[text]++; text = text "-" seen[text] } else seen[text] = 0
             print text
         }' "$1"
}

for file in README.md docs/*.md python/README.md; do
    # FILE:LINE TARGET for each link [text](target) outside code blocks and code spans.
    links=$(LC_ALL=C awk '/^```/ { inside = !inside; next }
        !inside {
            line = $0
            gsub(/`[^`]*`/, "", line)
            while (match(line, /\]\([^) ]+\)/)) {
                print FILENAME ":" FNR " " substr(line, RSTART + 2, RLENGTH - 3)
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$file")
    [ -n "$links" ] || continue
    dir=$(dirname "$file")
    while read -r place target; do
        case $target in
        http://* | https://* | mailto:*) continue ;;
        esac
        count=$((count + 1))
        path=${target%%#*}
        anchor=
        case $target in *'#'*) anchor=${target#*#} ;; esac
        if [ -z "$path" ]; then resolved=$file; else resolved=$dir/$path; fi
        if [ ! -e "$resolved" ]; then
            echo "$place: $target: no such file"
            status=1
        elif [ -n "$anchor" ] && ! anchors "$resolved" | grep -qxF -- "$anchor"; then
            echo "$place: $target: no heading with that anchor in $resolved"
            status=1
        fi
    done <<EOF
$links
EOF
done
if [ "$count" -eq 0 ]; then
    echo "no relative links found: the check itself is broken"
    exit 1
fi
[ "$status" -eq 0 ] && echo "$count relative links resolve"
exit "$status"
