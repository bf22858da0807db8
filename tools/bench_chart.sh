#!/usr/bin/env bash
# Draws the ratios of benchmark runs (cairn / its peer, the rows that end
# in "<ratio>x") as a bar chart in SVG, one bar per row, in the order of
# the outputs given.
#
#   bazel-bin/bench/persistence_benchmark > /tmp/persistence.txt
#   bazel-bin/bench/query_benchmark > /tmp/query.txt
#   tools/bench_chart.sh docs/benchmarks.svg /tmp/persistence.txt /tmp/query.txt
#
# Needs gnuplot (Debian's gnuplot-nox: apt-get install gnuplot-nox; only this
# script needs it, so tools/setup.sh leaves it out).
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 OUT.svg BENCHMARK_OUTPUT..." >&2
  exit 2
fi
command -v gnuplot >/dev/null || {
  echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2
  exit 1
}
out="$1"
shift
data="$(mktemp)"
trap 'rm -f "$data"' EXIT

# A row: the case, its two rates, then "<ratio>x" (the format of
# persistence_benchmark and query_benchmark). Header and FAILED lines have
# no such field.
awk '{
  for (i = 4; i <= NF; i++) {
    if ($i ~ /^[0-9]+(\.[0-9]+)?x$/ && $(i-1) ~ /^[0-9.]+$/ && $(i-2) ~ /^[0-9.]+$/) {
      name = $1
      for (j = 2; j <= i - 3; j++) name = name " " $j
      printf "%s\t%s\n", name, substr($i, 1, length($i) - 1)
      break
    }
  }
}' "$@" >"$data"

rows=$(wc -l <"$data")
if [[ $rows -eq 0 ]]; then
  echo "$0: no row with a ratio in $*" >&2
  exit 1
fi
height=$((100 + 22 * rows))
gnuplot <<GNUPLOT
set terminal svg size 900,${height} font "sans,11" background "white"
set output "${out}"
set datafile separator "\t"
set style fill solid 0.7 border -1
set xrange [0:*]
set yrange [${rows}-0.4:-0.6]
set xlabel "cairn / peer (1.0: as fast as the peer; higher is better)"
set grid xtics
set key off
set title "cairn against its peer in the same run (each row: see docs/BENCHMARKS.md)"
set lmargin 45
set arrow from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb "#aa0000"
plot "${data}" using (\$2/2):0:(\$2/2):(0.35):yticlabels(1) with boxxyerror linecolor rgb "#4477aa", \
     "${data}" using (\$2):0:(sprintf(" %.2f", \$2)) with labels left font "sans,9"
GNUPLOT
echo "wrote $out ($rows rows)"
