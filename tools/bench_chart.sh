#!/usr/bin/env bash
# Draws the ratios of benchmark runs (cairn / its peer: the rows with two
# rates, an optional unit and "<ratio>x", and hocon_parse_benchmark's
# "cairn is <ratio>x faster|slower") as a bar chart, one bar per row, in
# the order of the outputs given. OUT ending in .png gives a PNG
# (pngcairo, else gnuplot's png terminal); anything else an SVG.
#
#   bazel-bin/bench/persistence/persistence_benchmark > /tmp/persistence.txt
#   bazel-bin/bench/query/query_benchmark > /tmp/query.txt
#   tools/bench_chart.sh docs/benchmarks.svg /tmp/persistence.txt /tmp/query.txt
#
# bench/report.sh draws its charts with it. With --rows instead of OUT, it
# prints the rows it found (name, tab, ratio) and draws nothing.
#
# Needs gnuplot (Debian's gnuplot-nox: apt-get install gnuplot-nox; only this
# script needs it, so tools/setup.sh leaves it out).
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 OUT.svg|OUT.png|--rows BENCHMARK_OUTPUT..." >&2
  exit 2
fi
[[ $1 == --rows ]] || command -v gnuplot >/dev/null || {
  echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2
  exit 1
}
out="$1"
shift
data="$(mktemp)"
trap 'rm -f "$data"' EXIT

# A row: the case, its two rates, the unit if any (actor_vs_caf), then
# "<ratio>x" (persistence_benchmark, query_benchmark, sharding_benchmark).
# Header and FAILED lines have no such field. hocon_parse_benchmark says
# "cairn is <n>x faster" (or slower): drawn as peer time / cairn time.
awk '
function number(s) { return s ~ /^[0-9.]+$/ }
$2 == "cairn" && $(NF-2) == "is" && $NF ~ /^(faster|slower)$/ {
  r = substr($(NF-1), 1, length($(NF-1)) - 1)
  printf "HOCON %s, against cpp-hocon\t%s\n", $1, ($NF == "faster" ? r : 1 / r)
  next
}
{
  for (i = 4; i <= NF; i++) {
    if ($i !~ /^[0-9]+(\.[0-9]+)?x$/) continue
    if (number($(i-1)) && number($(i-2))) {
      last = i - 3
    } else if (i >= 5 && !number($(i-1)) && number($(i-2)) && number($(i-3))) {
      last = i - 4
    } else {
      continue
    }
    name = $1
    for (j = 2; j <= last; j++) name = name " " $j
    printf "%s\t%s\n", name, substr($i, 1, length($i) - 1)
    break
  }
}' "$@" >"$data"

if [[ $out == --rows ]]; then
  cat "$data"
  exit 0
fi
rows=$(wc -l <"$data")
if [[ $rows -eq 0 ]]; then
  echo "$0: no row with a ratio in $*" >&2
  exit 1
fi
height=$((100 + 22 * rows))
# Room right of the longest bar for its label. When the ratios span more
# than 10x (0.1x next to 9x), the axis is logarithmic and each bar starts
# at 1.0, so that the small ratios stay readable.
read -r xmin xmax scale < <(awk -F '\t' '
  NR == 1 || $2 < lo { lo = $2 }
  NR == 1 || $2 > hi { hi = $2 }
  END {
    if (lo > 0 && hi / lo > 10) print lo / 1.5, hi * 1.6, "log"
    else print 0, (hi > 1 ? hi : 1) * 1.12, "linear"
  }' "$data")
if [[ $scale == log ]]; then
  axis="set logscale x 2"
  bars="using 2:0:(\$2 < 1 ? \$2 : 1):(\$2 < 1 ? 1 : \$2):(\$0 - 0.35):(\$0 + 0.35):yticlabels(1)"
else
  axis="unset logscale x"
  bars="using (\$2/2):0:(\$2/2):(0.35):yticlabels(1)"
fi
case "$out" in
  *.png)
    if gnuplot -e "set terminal" </dev/null 2>&1 | grep -q pngcairo; then
      terminal="pngcairo size 900,${height} font \"sans,10\" background \"white\""
    else
      terminal="png size 900,${height} background \"#ffffff\""
    fi
    ;;
  *) terminal="svg size 900,${height} font \"sans,11\" background \"white\"" ;;
esac
gnuplot <<GNUPLOT
set terminal ${terminal}
set output "${out}"
set datafile separator "\t"
set style fill solid 0.7 border -1
${axis}
set xrange [${xmin}:${xmax}]
set yrange [${rows}-0.4:-0.6]
set xlabel "cairn / peer (1.0: as fast as the peer; higher is better)"
set grid xtics
set key off
set title "cairn against its peer in the same run (each row: see docs/BENCHMARKS.md)"
set lmargin 45
set arrow from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb "#aa0000"
plot "${data}" ${bars} with boxxyerror linecolor rgb "#4477aa", \
     "${data}" using (\$2):0:(sprintf(" %.2f", \$2)) with labels left font "sans,9"
GNUPLOT
echo "wrote $out ($rows rows)"
