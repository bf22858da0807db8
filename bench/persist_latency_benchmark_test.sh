#!/usr/bin/env bash
# Smoke test of persist_latency_benchmark: `--quick` exits 0 and prints
# every row with its figures. No figure is checked: they depend on the
# machine and its disk.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/persist_latency_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: persist_latency_benchmark --quick exited with $status"
  exit 1
fi

number='[0-9]+\.[0-9]+'
percentiles="p50 $number ms  p99 $number ms  p99\.9 $number ms  max $number ms"
failures=0
check() {  # $1: what the row is, $2: its pattern
  if ! grep -Eq -- "$2" "$out"; then
    echo "FAIL: no row for $1"
    failures=$((failures + 1))
  fi
}
check "fdatasync" "^fdatasync \(4 KiB append\) +$percentiles$"
check "1 actor, fsync on" \
  "^Persist, 1 actor, fsync on +$percentiles  ev/s [0-9]+  p99/fdatasync-p50 ${number}x$"
check "100 actors, fsync on" \
  "^Persist, 100 actors, fsync on +$percentiles  ev/s [0-9]+  p99/fdatasync-p50 ${number}x \(target <= 3x\)$"
check "100 actors, fsync off" \
  "^Persist, 100 actors, fsync off +$percentiles  ev/s [0-9]+$"
check "100 actors, fsync on, offered" \
  "^Persist, 100 actors, fsync on, 5000/s offered +$percentiles  ev/s [0-9]+  p99/fdatasync-p50 ${number}x \(target <= 3x\)$"

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
