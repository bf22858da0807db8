#!/usr/bin/env bash
# Smoke test of replay_memory_benchmark: `--quick` exits 0 and prints every
# row with its figures. No figure is checked: they depend on the machine.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/replay_memory_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: replay_memory_benchmark --quick exited with $status"
  exit 1
fi

failures=0
for events in 100000 200000; do
  if ! grep -Eq -- "^$events events +[0-9]+ +\+-?[0-9.]+ MB$" "$out"; then
    echo "FAIL: no row for $events events"
    failures=$((failures + 1))
  fi
done

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
