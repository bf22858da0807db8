#!/usr/bin/env bash
# Smoke test of persistence_benchmark: `--quick` exits 0 and prints every
# row with its three figures (cairn, raw, ratio). Timing is never checked:
# the figures depend on the machine.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/persistence_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: persistence_benchmark --quick exited with $status"
  exit 1
fi

failures=0
expect_row() {  # expect_row NAME: a line NAME followed by the figures
  if ! grep -F -- "$1 " "$out" |
    grep -Eq ' [0-9]+ +[0-9]+ +[0-9]+\.[0-9]+x '; then
    echo "FAIL: no row '$1' with its figures"
    failures=$((failures + 1))
  fi
}

for fsync in off on; do
  for mode in Persist PersistAsync 'PersistAll(10)'; do
    for actors in 1 10 100 1000; do
      noun=actors
      [ "$actors" -eq 1 ] && noun=actor
      expect_row "$mode, $actors $noun, fsync $fsync"
    done
  done
done
expect_row "recovery, 1 stream of"
expect_row "recovery, 1000 actors x 10 events"

grep -q '^cores: [0-9]' "$out" || { echo "FAIL: no core count"; failures=$((failures + 1)); }
grep -q '^RocksDB: [0-9]' "$out" || { echo "FAIL: no RocksDB version"; failures=$((failures + 1)); }

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
