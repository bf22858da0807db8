#!/usr/bin/env bash
# Smoke test of recovery_storm_benchmark: `--quick` exits 0 and prints every
# row with its figures. No figure is checked: they depend on the machine.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/recovery_storm_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: recovery_storm_benchmark --quick exited with $status"
  exit 1
fi

failures=0
for host in 'direct \(ActorOf\)' 'region' 'region, limit N/10'; do
  if ! grep -Eq -- "^$host +[0-9]+ +[0-9.]+x +\+-?[0-9.]+ MB +[0-9.]+/[0-9.]+/[0-9.]+$" "$out"; then
    echo "FAIL: no row for '$host'"
    failures=$((failures + 1))
  fi
done

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
