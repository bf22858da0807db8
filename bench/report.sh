#!/usr/bin/env bash
# Runs every benchmark under bench/, one after the other, and writes a report:
# DIR/<benchmark>.md for each (the machine, the date, the commit, the exact
# command, every figure as a Markdown table, the raw output below it), PNG
# charts drawn with gnuplot, and DIR/README.md indexing them with the
# headline ratios.
#
#   bench/report.sh                    # full runs into docs/bench/ (several minutes)
#   bench/report.sh --quick            # small counts: checks that everything works
#   bench/report.sh --quick --out /tmp/report-check
#
# Run it on a quiet machine: it stops nothing itself, so stop every other
# Bazel server (`bazel shutdown` in each other workspace) and every other
# load first. The figures of a busy machine mean little.
#
# The benchmarks are built with `tools/bazelw build -c opt` (BAZEL="bazel"
# or any other command in the environment replaces tools/bazelw). Progress
# goes to stderr: a line as each benchmark starts and finishes, and each
# row of its output as it is printed; when stderr is a terminal, a bar
# under them says how many benchmarks are done and which one runs. Needs gnuplot for the charts
# (Debian's gnuplot-nox); without it the report is written without them.
# Exits non-zero if a benchmark failed; its report says so and keeps what
# it printed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Each benchmark as PACKAGE/NAME: the target //bench/PACKAGE:NAME, the
# binary bazel-bin/bench/PACKAGE/NAME; its report page is DIR/NAME.md.
# PACKAGE/NAME@pinned runs it again pinned to one core (`taskset -c 0`),
# its page DIR/NAME-pinned.md: on a VM the figures on all cores depend on
# where the vCPUs land (up to 8x for cairn's messaging, issue 35), so the
# messaging and persistence rows are reported both ways.
benchmarks=(actor/actor_vs_caf actor/actor_vs_caf@pinned remote/remote_vs_caf
  hocon/hocon_parse_benchmark hocon/hocon_scale_benchmark
  persistence/persistence_benchmark persistence/persistence_benchmark@pinned
  postgres/postgres_benchmark query/query_benchmark sharding/sharding_benchmark
  persistence/recovery_storm_benchmark persistence/replay_memory_benchmark
  persistence/persist_latency_benchmark persistence/bank_load_benchmark
  persistence/entity_memory_benchmark persistence/typed_vs_classic_benchmark)

quick=0
out="$root/docs/bench"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --out)
      [[ $# -ge 2 ]] || { echo "$0: --out needs a directory" >&2; exit 2; }
      out="$2"
      shift
      ;;
    *)
      echo "usage: $0 [--quick] [--out DIR]" >&2
      exit 2
      ;;
  esac
  shift
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# On a terminal, the bar (below) is the last line: erase it before
# printing a line, draw it again after.
on_terminal=0
[[ -t 2 ]] && on_terminal=1
erase_bar() { [[ $on_terminal -eq 0 ]] || printf '\r\033[K' >&2; }
bar_text=""
draw_bar() { [[ $on_terminal -eq 0 || -z $bar_text ]] || printf '%s' "$bar_text" >&2; }
# set_bar DONE COUNT RUNNING SINCE: "[#####...............] 2/10 done,
# running persistence_benchmark since 07:58:12".
set_bar() {
  local width=20 filled=$(($1 * 20 / $2)) marks
  marks="$(printf '%*s' "$filled" '' | tr ' ' '#')$(printf '%*s' $((width - filled)) '' | tr ' ' '.')"
  bar_text="[$marks] $1/$2 done${3:+, running $3 since $4}"
  erase_bar
  draw_bar
}
log() {
  erase_bar
  echo "report: $*" >&2
  draw_bar
}
# Each row a benchmark prints, prefixed with its name, above the bar.
show_rows() {
  local line
  while IFS= read -r line; do
    erase_bar
    printf '  %s | %s\n' "$1" "$line" >&2
    draw_bar
  done
}

# --- What the report says about the machine and the tree -----------------

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
# The report's own output does not make the tree dirty.
if [[ -n "$(git status --porcelain -- . ':(exclude)docs/bench' 2>/dev/null)" ]]; then
  commit="$commit (dirty: the tree has uncommitted changes)"
fi
cpu="$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
memory="$(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1e6 }' /proc/meminfo)"
os="$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}")"
stores="${TMPDIR:-/tmp}"
disk="$(df -hT "$stores" 2>/dev/null | awk 'NR == 2 { print $1 " (" $2 ", " $3 ")" }')"
mode="full runs"
quick_flag=""
if [[ $quick -eq 1 ]]; then
  mode="small counts (--quick): a check that it works, not figures to compare"
  quick_flag=" --quick"
fi

# The Markdown header of one benchmark's report: $1 the name, $2 the command,
# $3 the load average when it started, $4 its duration, $5 its exit status.
header() {
  cat <<EOF
# $1

| | |
| --- | --- |
| date | $(date -u '+%Y-%m-%d %H:%M UTC') |
| commit | \`$commit\` |
| command | \`$2\` |
| run | $mode, $4 s, exit status $5 |
| CPU | ${cpu:-unknown}, $(nproc) cores |
| memory | $memory |
| system | $(uname -sr)${os:+, $os} |
| stores (\`\$TMPDIR\`) | \`$stores\` on ${disk:-unknown} |
| load average at start | $3 |

Built with \`${bazel_cmd[*]} build -c opt\`; the report by \`bench/report.sh$quick_flag\`.
docs/BENCHMARKS.md says what each row measures.

EOF
}

# --- Tables: one parser per output format ---------------------------------
# Each reads a benchmark's stdout and prints Markdown tables. A line a
# parser does not recognize is left to the raw output below the tables.

table_actor_vs_caf() {
  awk '
  NF >= 5 && $NF ~ /^[0-9.]+x$/ && $(NF-3) ~ /^[0-9.]+$/ {
    if (!n++) print "| pattern | cairn | CAF 0.17 | unit | cairn / CAF |\n| --- | ---: | ---: | --- | ---: |"
    name = $1; for (i = 2; i <= NF - 4; i++) name = name " " $i
    printf "| %s | %s | %s | %s | %s |\n", name, $(NF-3), $(NF-2), $(NF-1), $NF
  }' "$1"
  echo
  echo "memory per idle actor: bytes, lower is better; its ratio is CAF / cairn."
}

# remote_vs_caf: each row's medians, the unit and the ratio ("-" for the
# rows that restate another), then each side's least and most over the
# runs; Akka's published figures under them.
table_remote_vs_caf() {
  awk '
  / cairn [0-9.]+-[0-9.]+, CAF [0-9.]+-[0-9.]+$/ {
    if (!n++) print "| pattern | cairn | CAF 0.17 | unit | cairn vs CAF | cairn, least-most | CAF, least-most |\n| --- | ---: | ---: | --- | ---: | ---: | ---: |"
    name = $1; for (j = 2; j <= NF - 8; j++) name = name " " $j
    least_most = $(NF-2); sub(/,$/, "", least_most)
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, $(NF-7), $(NF-6), $(NF-5), $(NF-4), least_most, $NF
  }
  /^Akka Artery, published/ { akka = $0 }
  END {
    print "\nA ratio above 1 is cairn ahead: cairn / CAF for rates, CAF / cairn for latencies. With 1000 in flight, a round trip is mostly queueing (the rate again): no ratio."
    if (akka != "") printf "\n%s (other machines, a real network: no ratio).\n", akka
  }' "$1"
}

table_hocon_parse_benchmark() {
  awk '
  /^BM_/ && NF >= 6 {
    if (!n++) print "| benchmark | time | CPU | iterations |\n| --- | ---: | ---: | ---: |"
    printf "| %s | %s %s | %s %s | %s |\n", $1, $2, $3, $4, $5, $6
  }
  $2 == "cairn" && $(NF-2) == "is" {
    lines[++m] = $0
  }
  END {
    if (m) print "\n| what | cairn | cpp-hocon | cairn is |\n| --- | ---: | ---: | --- |"
    for (k = 1; k <= m; k++) {
      split(lines[k], f, /[ ,:]+/)
      # f: what, "cairn", time, "us", "cpp-hocon", time, "us", "cairn", "is", ratio, verdict
      printf "| %s | %s us | %s us | %s %s |\n", f[1], f[3], f[6], f[10], f[11]
    }
  }' "$1"
}

table_hocon_scale_benchmark() {
  awk '
  function row(name, bytes, ms, rss, rssx, heap, heapx) {
    if (!n++) print "| row | input bytes | time ms | peak RSS | RSS / input | heap | heap / input |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", name, bytes, ms, rss, rssx, heap, heapx
  }
  /bytes/ && /ms/ {
    for (i = 1; i <= NF; i++) if ($i == "bytes") break
    name = $1; for (j = 2; j < i - 1; j++) name = name " " $j
    if ($0 ~ /peak RSS/) {
      for (k = i; k <= NF; k++) {
        if ($k == "RSS") { rss = $(k+1) " MB"; rssx = $(k+4) }
        if ($k == "heap") { heap = $(k+1) " MB"; heapx = $(k+4) }
      }
      row(name, $(i-1), $(i+1), rss, rssx, heap, heapx)
    } else {
      row(name, $(i-1), $(i+1), "", "", "", "")
    }
  }' "$1"
}

table_persistence_benchmark() {
  awk '
  NF >= 6 && $(NF-2) ~ /^[0-9.]+x$/ && $(NF-4) ~ /^[0-9.]+$/ {
    if (!n++) print "| case | cairn ev/s | raw ev/s | cairn / raw | ev/commit | value B |\n| --- | ---: | ---: | ---: | ---: | ---: |"
    name = $1; for (i = 2; i <= NF - 5; i++) name = name " " $i
    printf "| %s | %s | %s | %s | %s | %s |\n", name, $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF
  }
  # The spread of the ratios, after its title (persistence_benchmark only).
  /^ratio per run \(/ { spread = 1; cost = ""; next }
  spread && NF >= 4 && $NF ~ /^[0-9.]+$/ && $(NF-1) ~ /^[0-9.]+$/ && $(NF-2) ~ /^[0-9.]+$/ {
    if (!k++) print "\nThe ratio of each run (cairn, then raw, in turns): its median, shown above, and range:\n\n| case | median | fewest | most |\n| --- | ---: | ---: | ---: |"
    name = $1; for (i = 2; i <= NF - 3; i++) name = name " " $i
    printf "| %s | %sx | %sx | %sx |\n", name, $(NF-2), $(NF-1), $NF
  }
  # The allocations and CPU tables, each after its title
  # (persistence_benchmark only): cairn, raw and their ratio per case.
  /^allocations per event \(/ { cost = "Allocations per event in the timed part (every thread; the fewest of the runs)"; spread = 0; next }
  /^CPU per event \(/ { cost = "CPU microseconds per event in the timed part (every thread of the process; the median of the runs)"; spread = 0; next }
  cost != "" && NF >= 4 && $NF ~ /^[0-9.]+$/ && $(NF-1) ~ /^[0-9.]+$/ && $(NF-2) ~ /^[0-9.]+$/ {
    if (!(cost in shown)) { shown[cost] = 1; print "\n" cost ":\n\n| case | cairn | raw | cairn / raw |\n| --- | ---: | ---: | ---: |" }
    name = $1; for (i = 2; i <= NF - 3; i++) name = name " " $i
    printf "| %s | %s | %s | %s |\n", name, $(NF-2), $(NF-1), $NF
  }' "$1"
}

# persistence_benchmark's table, then the published Akka.NET figures
# printed under the rows they match, with cairn's ratio to their top.
table_postgres_benchmark() {
  table_persistence_benchmark "$1"
  awk '
  NF >= 6 && $(NF-2) ~ /^[0-9.]+x$/ && $(NF-4) ~ /^[0-9.]+$/ {
    name = $1; for (i = 2; i <= NF - 5; i++) name = name " " $i
    next
  }
  /Akka\.NET .*published: .*its top/ {
    figure = $0; sub(/.*published: /, "", figure); sub(/;.*/, "", figure)
    ratio = $0; sub(/.*cairn = /, "", ratio); sub(/ its top.*/, "", ratio)
    goal = $0; sub(/.*\(goal /, "", goal); sub(/\).*/, "", goal)
    if (!n++) print "\n| case | Akka.NET Akka.Persistence.Sql (PostgreSQL), published | cairn / its top | goal |\n| --- | --- | ---: | --- |"
    printf "| %s | %s | %s | %s |\n", name, figure, ratio, goal
  }' "$1"
}

# For the index: cairn against the top of Akka.NET's published figures
# (postgres_benchmark), the best ratio of each kind of row; nothing for
# other benchmarks.
akka_headline() {
  awk '
  /Akka\.NET .*published: .*its top/ {
    kind = ($0 ~ /published: PersistAsync/) ? "PersistAsync" : "recovery"
    ratio = $0; sub(/.*cairn = /, "", ratio); sub(/x its top.*/, "", ratio)
    if (!(kind in best) || ratio + 0 > best[kind]) best[kind] = ratio + 0
    goal = $0; sub(/.*\(goal /, "", goal); sub(/\).*/, "", goal)
  }
  END {
    if (!length(best)) exit
    printf "; against Akka.NET Akka.Persistence.Sql'"'"'s published top (goal %s):", goal
    if ("PersistAsync" in best) printf " PersistAsync %.1fx", best["PersistAsync"]
    if ("recovery" in best) printf "%s recovery %.1fx", ("PersistAsync" in best ? "," : ""), best["recovery"]
  }' "$1"
}

# A row with two rates and "<ratio>x", then maybe the peer's name
# (query_benchmark and sharding_benchmark's first rows).
rate_rows() {
  awk -v heads="$2" '
  {
    for (i = 4; i <= NF; i++) {
      if ($i ~ /^[0-9.]+x$/ && $(i-1) ~ /^[0-9.]+$/ && $(i-2) ~ /^[0-9.]+$/) {
        if (!n++) { rule = heads; gsub(/[^|]+/, " --- ", rule); print heads "\n" rule }
        name = $1; for (j = 2; j <= i - 3; j++) name = name " " $j
        peer = ""; for (j = i + 1; j <= NF; j++) peer = peer (peer == "" ? "" : " ") $j
        printf "| %s | %s | %s | %s |%s\n", name, $(i-2), $(i-1), $i, (heads ~ /peer \|$/ ? " " peer " |" : "")
        break
      }
    }
  }' "$1"
}

table_query_benchmark() {
  rate_rows "$1" "| case | cairn ev/s | peer ev/s | cairn / peer | peer |"
  echo
  awk '
  /p50 us/ { title = $0; sub(/ +events +p50 us +p99 us *$/, "", title); live = 1; next }
  live && NF >= 4 && $NF ~ /^-?[0-9]+$/ && $(NF-1) ~ /^-?[0-9]+$/ {
    if (!n++) printf "| %s | events | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: |\n", title
    name = $1; for (i = 2; i <= NF - 3; i++) name = name " " $i
    printf "| %s | %s | %.1f | %.1f |\n", name, $(NF-2), $(NF-1) / 1000, $NF / 1000
  }' "$1"
}

table_sharding_benchmark() {
  rate_rows "$1" "| case | via ev/s | direct ev/s | via / direct |"
  echo
  awk '
  /touched once:$/ { title = $0; sub(/:$/, "", title); next }
  /entities\/s, peak heap/ {
    if (!n++) printf "| %s | entities/s | peak heap |\n| --- | ---: | ---: |\n", title
    for (i = 1; i <= NF; i++) if ($i == "entities/s,") break
    name = $1; for (j = 2; j < i - 1; j++) name = name " " $j
    printf "| %s | %s | %s %s |\n", name, $(i-1), $(i+3), $(i+4)
  }' "$1"
}

table_recovery_storm_benchmark() {
  awk '
  /persistent actors x/ { print $0 "\n" }
  NF >= 6 && $NF ~ /^[0-9.]+\/[0-9.]+\/[0-9.]+$/ && $(NF-3) ~ /^[0-9.]+x$/ {
    if (!n++) print "| host | actors/s | ratio to direct | peak heap | ping wait p50 ms | p99 ms | max ms |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    name = $1; for (i = 2; i <= NF - 5; i++) name = name " " $i
    split($NF, p, "/")
    printf "| %s | %s | %s | %s %s | %s | %s | %s |\n", name, $(NF-4), $(NF-3), $(NF-2), $(NF-1), p[1], p[2], p[3]
  }' "$1"
}

# persist_latency_benchmark: the rows of latency percentiles ("p50 <ms> ms
# p99 ... max <ms> ms"), then maybe "ev/s <rate>", "p99/fdatasync-p50
# <ratio>x" and "(target <= 3x)". Prints name, p50, p99, p99.9, max, rate,
# ratio, target, tab-separated (empty when absent).
latency_rows() {
  awk '
  {
    for (i = 2; i <= NF; i++) if ($i == "p50" && $(i+2) == "ms") break
    if (i > NF || $(i+3) != "p99" || $(i+9) != "max") next
    name = $1; for (j = 2; j < i; j++) name = name " " $j
    rate = ""; ratio = ""; target = ""
    for (j = i + 12; j <= NF; j++) {
      if ($j == "ev/s") rate = $(j+1)
      if ($j == "p99/fdatasync-p50") ratio = $(j+1)
      if ($j == "(target") { target = $(j+1) " " $(j+2); sub(/\)$/, "", target) }
    }
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, $(i+1), $(i+4), $(i+7), $(i+10), rate, ratio, target
  }' "$1"
}

# replay_memory_benchmark: "<N> events  <ev/s>  +<MB> MB" per stream.
table_replay_memory_benchmark() {
  awk '
  $2 == "events" && $NF == "MB" {
    if (!n++) print "| stream | events/s | peak heap above the start |\n| --- | ---: | ---: |"
    printf "| %s events | %s | %s MB |\n", $1, $3, $4
  }' "$1"
}

# entity_memory_benchmark: "<entity>  <count>  <bytes>  [<= <target>]".
entity_memory_rows() {
  awk '
  NF >= 3 && $1 != "entity" && $1 != "cores:" {
    if ($(NF-1) == "<=") { target = "<= " $NF; last = NF - 2 } else { target = ""; last = NF }
    if ($last !~ /^[0-9]+$/ || $(last-1) !~ /^[0-9]+$/) next
    name = $1; for (i = 2; i <= last - 2; i++) name = name " " $i
    printf "%s\t%s\t%s\t%s\n", name, $(last-1), $last, target
  }' "$1"
}

table_entity_memory_benchmark() {
  entity_memory_rows "$1" | awk -F '\t' '
  {
    if (!n++) print "| entity | entities | bytes per entity | target |\n| --- | ---: | ---: | --- |"
    printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4
  }'
}

# typed_vs_classic_benchmark: each row's rates and the spread of the
# ratio, then what an event cost each side.
table_typed_vs_classic_benchmark() {
  awk '
  /^allocations and CPU per event/ { cost = 1; next }
  !cost && NF >= 6 && $(NF-2) ~ /^[0-9.]+x$/ && $NF ~ /^[0-9.]+x$/ {
    if (!n++) print "| case | typed ev/s | classic ev/s | typed / classic | fewest | most |\n| --- | ---: | ---: | ---: | ---: | ---: |"
    name = $1; for (i = 2; i <= NF - 5; i++) name = name " " $i
    printf "| %s | %s | %s | %s | %s | %s |\n", name, $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF
  }
  cost && NF >= 5 && $NF ~ /^[0-9.]+$/ && $(NF-3) ~ /^[0-9.]+$/ {
    if (!m++) print "\nPer event, timed part, every thread:\n\n| case | typed allocations | classic allocations | typed CPU us | classic CPU us |\n| --- | ---: | ---: | ---: | ---: |"
    name = $1; for (i = 2; i <= NF - 4; i++) name = name " " $i
    printf "| %s | %s | %s | %s | %s |\n", name, $(NF-3), $(NF-2), $(NF-1), $NF
  }' "$1"
}

table_persist_latency_benchmark() {
  latency_rows "$1" | awk -F '\t' '
  {
    if (!n++) print "| row | p50 ms | p99 ms | p99.9 ms | max ms | ev/s | p99 / fdatasync p50 | target |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8
  }'
}

table_bank_load_benchmark() {
  awk '
  /^bank load: / { print $0 "\n" }
  NF >= 9 && $(NF-2) ~ /^[0-9.]+x$/ && $(NF-1) ~ /^>=/ {
    if (!n++) print "| case | cairn deposits/s | raw events/s | cairn / raw | target | value B |\n| --- | ---: | ---: | ---: | ---: | ---: |"
    name = $1; for (i = 2; i <= NF - 5; i++) name = name " " $i
    printf "| %s | %s | %s | %s | %s | %s |\n", name, $(NF-4), $(NF-3), $(NF-2), $(NF-1), $NF
  }' "$1"
}

# --- Charts ---------------------------------------------------------------

have_gnuplot=0
command -v gnuplot >/dev/null && have_gnuplot=1
png_terminal() {
  if gnuplot -e "set terminal" </dev/null 2>&1 | grep -q pngcairo; then
    echo "pngcairo size $1,$2 font \"sans,10\" background \"white\""
  else
    echo "png size $1,$2 background \"#ffffff\""
  fi
}

# Persist throughput by actor count, cairn next to raw RocksDB: one panel
# per kind of persist and fsync setting.
chart_persistence() {
  local data="$work/persistence.dat"
  awk '
  /^Persist/ && $(NF-2) ~ /^[0-9.]+x$/ && $(NF-5) ~ /^(on|off)$/ {
    kind = $1; sub(/,$/, "", kind)
    printf "%s fsync-%s\t%s\t%s\t%s\n", kind, $(NF-5), $2, $(NF-4), $(NF-3)
  }' "$1" >"$data"
  [[ -s $data ]] || return 1
  gnuplot <<GNUPLOT
set terminal $(png_terminal 1100 650)
set output "$2"
set datafile separator "\t"
set multiplot layout 2,3 title "Persist throughput by actor count: cairn and raw RocksDB doing the same writes"
set logscale x
set xrange [0.7:1500]
set xtics ("1" 1, "10" 10, "100" 100, "1000" 1000)
set ylabel "thousand events/s"
set yrange [0:*]
set grid
set key below horizontal
do for [fsync in "off on"] {
  do for [kind in "Persist PersistAsync PersistAll(10)"] {
    set title kind . ", fsync " . fsync
    set xlabel "actors"
    plot "$data" using (strcol(1) eq kind . " fsync-" . fsync ? \$2 : NaN):(\$3/1000) with linespoints lw 2 pt 7 lc rgb "#4477aa" title "cairn", \
         "$data" using (strcol(1) eq kind . " fsync-" . fsync ? \$2 : NaN):(\$4/1000) with linespoints lw 2 pt 5 lc rgb "#aa6644" title "raw RocksDB"
  }
}
unset multiplot
GNUPLOT
}

# query_benchmark's live row: p50 and p99 of each latency, in ms.
chart_query_latency() {
  local data="$work/query-latency.dat"
  awk '
  /p50 us/ { live = 1; next }
  live && NF >= 4 && $NF ~ /^-?[0-9]+$/ && $(NF-1) ~ /^-?[0-9]+$/ {
    name = $1; for (i = 2; i <= NF - 3; i++) name = name " " $i
    printf "%s\t%.3f\t%.3f\n", name, $(NF-1) / 1000, $NF / 1000
  }' "$1" >"$data"
  [[ -s $data ]] || return 1
  gnuplot <<GNUPLOT
set terminal $(png_terminal 900 450)
set output "$2"
set datafile separator "\t"
set title "Live EventsByTag under 1000 writing actors: latency (ms)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set ylabel "ms"
set grid ytics
set key top right
plot "$data" using 2:xticlabels(1) title "p50" lc rgb "#4477aa", \
     "" using 3 title "p99" lc rgb "#aa6644"
GNUPLOT
}

# recovery_storm_benchmark: how long a ping waited during each storm.
chart_recovery_ping() {
  local data="$work/recovery-ping.dat"
  awk '
  NF >= 6 && $NF ~ /^[0-9.]+\/[0-9.]+\/[0-9.]+$/ && $(NF-3) ~ /^[0-9.]+x$/ {
    name = $1; for (i = 2; i <= NF - 5; i++) name = name " " $i
    split($NF, p, "/")
    # A log scale has no zero: below 0.1 ms is drawn as 0.1.
    for (k = 1; k <= 3; k++) if (p[k] < 0.1) p[k] = 0.1
    printf "%s\t%s\t%s\t%s\n", name, p[1], p[2], p[3]
  }' "$1" >"$data"
  [[ -s $data ]] || return 1
  gnuplot <<GNUPLOT
set terminal $(png_terminal 900 450)
set output "$2"
set datafile separator "\t"
set title "Recovery storm: how long a ping to another actor waited (ms, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set logscale y
set yrange [0.05:*]
set ylabel "ms"
set grid ytics
set key outside right top
plot "$data" using 2:xticlabels(1) title "p50" lc rgb "#4477aa", \
     "" using 3 title "p99" lc rgb "#aa6644", \
     "" using 4 title "max" lc rgb "#888888"
GNUPLOT
}

# persist_latency_benchmark: p50, p99 and p99.9 of each row, the disk's
# fdatasync first, and the target (3x the fdatasync p50) as a dashed line.
chart_persist_latency() {
  local data="$work/persist-latency.dat" target line=""
  latency_rows "$1" | cut -f1-4 >"$data"
  [[ -s $data ]] || return 1
  target="$(awk -F '\t' '/^fdatasync/ { print 3 * $2; exit }' "$data")"
  if [[ -n $target ]]; then
    line="set arrow from graph 0, first $target to graph 1, first $target nohead dt 2 lw 2 lc rgb '#cc3311'
set label 'target: p99 <= 3x fdatasync p50' at graph 0.01, first $target offset 0, 0.7 tc rgb '#cc3311'"
  fi
  gnuplot <<GNUPLOT
set terminal $(png_terminal 1000 480)
set output "$2"
set datafile separator "\t"
set title "Persist latency beside one fdatasync of the disk (ms, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set logscale y
set ylabel "ms"
set grid ytics
set xtics rotate by -15
set key outside right top
$line
plot "$data" using 2:xticlabels(1) title "p50" lc rgb "#4477aa", \
     "" using 3 title "p99" lc rgb "#aa6644", \
     "" using 4 title "p99.9" lc rgb "#888888"
GNUPLOT
}

# Draws what fits benchmark $1 (output $2) into the report directory and
# prints the Markdown that shows it.
charts_of() {
  [[ $have_gnuplot -eq 1 ]] || return 0
  local name="$1" raw="$2"  # name: the page's (NAME or NAME-pinned)
  if [[ -n "$(tools/bench_chart.sh --rows "$raw")" ]] &&
    tools/bench_chart.sh "$out/$name-ratios.png" "$raw" >/dev/null; then
    echo "![$name: cairn against its peer, each row's ratio]($name-ratios.png)"
    echo
  fi
  case "$name" in
    persistence_benchmark)
      chart_persistence "$raw" "$out/persistence-by-actors.png" &&
        printf '%s\n\n' "![persist throughput by actor count, cairn and raw RocksDB](persistence-by-actors.png)"
      ;;
    persistence_benchmark-pinned)
      chart_persistence "$raw" "$out/persistence-by-actors-pinned.png" &&
        printf '%s\n\n' "![persist throughput by actor count on one core, cairn and raw RocksDB](persistence-by-actors-pinned.png)"
      ;;
    query_benchmark)
      chart_query_latency "$raw" "$out/query-latency.png" &&
        printf '%s\n\n' "![live EventsByTag latency, p50 and p99](query-latency.png)"
      ;;
    recovery_storm_benchmark)
      chart_recovery_ping "$raw" "$out/recovery-ping.png" &&
        printf '%s\n\n' "![recovery storm: ping wait p50, p99, max](recovery-ping.png)"
      ;;
    persist_latency_benchmark)
      chart_persist_latency "$raw" "$out/persist-latency.png" &&
        printf '%s\n\n' "![persist latency p50, p99, p99.9 beside fdatasync](persist-latency.png)"
      ;;
  esac
  return 0
}

# The headline of a benchmark in the index: its ratios, summed up when
# there are many.
headline() {
  local raw="$1" rows
  rows="$(tools/bench_chart.sh --rows "$raw")"
  if [[ -z $rows ]] && grep -q 'p99/fdatasync-p50' "$raw"; then
    # persist_latency_benchmark: its target rows, lower is better.
    latency_rows "$raw" | awk -F '\t' '
    $8 != "" { printf "%s%s: p99 %s ms = %s fdatasync p50", (n++ ? "; " : ""), $1, $3, $7; t = $8 }
    END { if (n) printf " (lower is better, target %s)\n", t; else print "no ratio (see its tables)" }'
    return
  fi
  if [[ -z $rows ]] && grep -q 'bytes/entity' "$raw"; then
    # entity_memory_benchmark: bytes per entity against their targets.
    entity_memory_rows "$raw" | awk -F '\t' '
    $4 != "" { printf "%s%s x %s: %s B (%s)", (n++ ? "; " : ""), $1, $2, $3, $4 }
    END { print "" }'
    return
  fi
  if [[ -z $rows ]]; then
    # recovery_storm_benchmark: each host against direct.
    rows="$(awk 'NF >= 6 && $(NF-3) ~ /^[0-9.]+x$/ && $NF ~ /\// {
      name = $1; for (i = 2; i <= NF - 5; i++) name = name " " $i
      printf "%s\t%s\n", name, substr($(NF-3), 1, length($(NF-3)) - 1) }' "$raw")"
  fi
  if [[ -z $rows ]]; then
    echo "no ratio (see its tables)"
  elif [[ $(wc -l <<<"$rows") -le 6 ]]; then
    awk -F '\t' '{ printf "%s%s %.2fx", (NR > 1 ? "; " : ""), $1, $2 } END { print "" }' <<<"$rows"
  else
    cut -f2 <<<"$rows" | sort -g | awk '
    { r[NR] = $1 }
    END {
      median = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
      printf "%d rows, from %.2fx to %.2fx, median %.2fx\n", NR, r[1], r[NR], median
    }'
  fi
}

# --- Build, then run each benchmark ---------------------------------------

read -ra bazel_cmd <<<"${BAZEL:-tools/bazelw}"
targets=()
for p in "${benchmarks[@]}"; do
  [[ $p == *@pinned ]] || targets+=("//bench/${p%/*}:${p##*/}")
done
log "building: ${bazel_cmd[*]} build -c opt ${targets[*]}"
"${bazel_cmd[@]}" build -c opt "${targets[@]}"

failed=()
index_rows=()
count=${#benchmarks[@]}
n=0
for entry in "${benchmarks[@]}"; do
  p="${entry%@pinned}"
  b="${p##*/}"
  page="$b"
  pin=()
  if [[ $entry == *@pinned ]]; then
    page="$b-pinned"
    pin=(taskset -c 0)
  fi
  n=$((n + 1))
  args=()
  env_prefix=""
  case "$b" in
    hocon_parse_benchmark)
      # It finds the conformance data (../shared/conformance) from the
      # workspace, as under `bazel run`. It has no --quick: a shorter
      # minimum time per benchmark stands for it.
      env_prefix="BUILD_WORKSPACE_DIRECTORY=$root"
      if [[ $quick -eq 1 ]]; then args+=(--benchmark_min_time=0.05); fi
      ;;
    *)
      if [[ $quick -eq 1 ]]; then args+=(--quick); fi
      ;;
  esac
  shown="${env_prefix:+$env_prefix }${pin[*]:+${pin[*]} }bazel-bin/bench/$p${args[*]:+ ${args[*]}}"
  raw="$work/$page.txt"
  errors="$work/$page.err"
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  log "[$n/$count] $page: started $(date -u +%H:%M:%S) (load average $load): $shown"
  set_bar $((n - 1)) "$count" "$page" "$(date -u +%H:%M:%S)"
  start=$(date +%s)
  set +e
  # Without terminal colours: hocon_parse_benchmark's reporter (Google
  # Benchmark's ConsoleReporter) colours its rows even into a pipe.
  env ${env_prefix:+"$env_prefix"} "${pin[@]}" "bazel-bin/bench/$p" "${args[@]}" 2>"$errors" |
    sed -u 's/\x1b\[[0-9;]*m//g' | tee "$raw" | show_rows "$page"
  status=${PIPESTATUS[0]}
  set -e
  seconds=$(($(date +%s) - start))
  set_bar "$n" "$count"
  log "[$n/$count] $page: finished in ${seconds} s, exit status $status"
  if [[ $status -ne 0 ]]; then
    failed+=("$page")
    tail -n 20 "$errors" | show_rows "$page (stderr)"
  fi

  {
    header "$page" "$shown" "$load" "$seconds" "$status"
    if [[ $status -ne 0 ]]; then
      echo "**FAILED** with exit status $status. The end of its stderr:"
      echo
      echo '```'
      tail -n 20 "$errors"
      echo '```'
      echo
    fi
    echo "## Figures"
    echo
    tables="$("table_$b" "$raw")"
    if grep -q '^|' <<<"$tables"; then
      printf '%s\n\n' "$tables"
    else
      printf '%s\n\n' "No row was recognized: the raw output is below."
    fi
    charts_of "$page" "$raw"
    echo "## Raw output"
    echo
    echo '```'
    cat "$raw"
    echo '```'
  } >"$out/$page.md"
  shown_name="$b"
  [[ $page == "$b" ]] || shown_name="$b, pinned to one core"
  index_rows+=("| [$shown_name]($page.md) | ${seconds} s | $status | $(headline "$raw")$(akka_headline "$raw") |")
done

# --- The index --------------------------------------------------------------

ratios_chart=""
if [[ $have_gnuplot -eq 1 ]]; then
  # On all cores only: a pinned run's rows have the same names.
  raws=()
  for p in "${benchmarks[@]}"; do
    [[ $p == *@pinned ]] || raws+=("$work/${p##*/}.txt")
  done
  if tools/bench_chart.sh "$out/ratios.png" "${raws[@]}" >/dev/null 2>&1; then
    ratios_chart="![every row with a ratio: cairn against its peer](ratios.png)"
  fi
fi
{
  echo "# Benchmark report"
  echo
  echo "Written by \`bench/report.sh$quick_flag\`, $mode."
  echo "Commit \`$commit\`, $(date -u '+%Y-%m-%d %H:%M UTC'); ${cpu:-unknown CPU}, $(nproc) cores, $memory,"
  echo "$(uname -sr). Each benchmark's page has the machine in full and its raw output;"
  echo "docs/BENCHMARKS.md says what each row measures."
  echo
  echo "| benchmark | duration | exit status | headline ratios (cairn / its peer, region / direct; higher is better) |"
  echo "| --- | ---: | ---: | --- |"
  printf '%s\n' "${index_rows[@]}"
  echo
  if [[ -n $ratios_chart ]]; then
    printf '%s\n\n' "$ratios_chart"
  elif [[ $have_gnuplot -eq 0 ]]; then
    echo "gnuplot was not found: no charts (apt-get install gnuplot-nox)."
  fi
} >"$out/README.md"

bar_text=""
log "wrote $out/README.md and a page per benchmark"
if [[ ${#failed[@]} -gt 0 ]]; then
  log "FAILED: ${failed[*]}"
  exit 1
fi
