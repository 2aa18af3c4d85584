#!/bin/sh
# Plots Mkeys/s against n (log scale) from a clradix-bench CSV file: one line per device,
# implementation, key type, value size and distribution; the colour tells the data (device,
# type, values, distribution), the line the implementation (clradix solid, Boost.Compute
# dashed, qsort dotted).
# Usage: bench/plot.sh results.csv [plot.png]
set -eu
[ $# -ge 1 ] || { echo "usage: $0 results.csv [plot.png]" >&2; exit 2; }
csv=$1
png=${2:-${csv%.csv}.png}
command -v gnuplot >/dev/null 2>&1 || {
    echo "plot.sh: gnuplot is not installed (scripts/install-deps.sh installs it)" >&2
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One data file per series ("n Mkeys/s" lines), and a gnuplot plot clause for each.
awk -F, -v dir="$work" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    BEGIN {
        split("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #17becf #7f7f7f #bcbd22", palette, " ")
        style["clradix"] = "dt 1 lw 2.5"; style["boost"] = "dt 2 lw 1.5"; style["qsort"] = "dt 3 lw 1.5"
    }
    {
        values = $col["value_size"] > 0 ? "+" $col["value_size"] "B" : ""
        data = "device " $col["device"] " " $col["type"] values " " $col["dist"]
        key = data " " $col["impl"]
        if (!(data in colour)) colour[data] = palette[(++colours - 1) % 10 + 1]
        if (!(key in file)) {
            file[key] = dir "/series" ++count
            title[count] = key; name[count] = file[key]
            how[count] = "lc rgb \"" colour[data] "\" " ($col["impl"] in style ? style[$col["impl"]] : "dt 4")
        }
        print $col["n"], $col["mkeys_per_s"] > file[key]
    }
    END {
        if (count == 0) { print "plot.sh: no results in the CSV file" > "/dev/stderr"; exit 1 }
        for (i = 1; i <= count; ++i)
            printf "%s\"< sort -n %s\" using 1:2 with linespoints %s title \"%s\"", (i > 1 ? ", " : "plot "), name[i], how[i], title[i] > (dir "/plot.gp")
        print "" > (dir "/plot.gp")
    }' "$csv"

{
    echo "set terminal pngcairo size 1000,640 font ',10'"
    echo "set output '$png'"
    echo "set logscale x 2"
    echo "set logscale y"
    echo "set yrange [1:*]"
    echo "set format x '2^{%L}'"
    echo "set xlabel 'keys (n)'"
    echo "set ylabel 'Mkeys/s (median, log scale)'"
    echo "set title 'clradix-bench: $(basename "$csv")'"
    echo "set grid"
    echo "set key outside right"
    cat "$work/plot.gp"
} | gnuplot
echo "plot.sh: wrote $png"
