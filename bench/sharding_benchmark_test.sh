#!/usr/bin/env bash
# Smoke test of sharding_benchmark: `--quick` exits 0 and prints every row
# with its figures. No figure is checked: they depend on the machine.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/sharding_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: sharding_benchmark --quick exited with $status"
  exit 1
fi

failures=0
expect_row() {  # expect_row PATTERN: a row matching the extended regex
  if ! grep -Eq -- "$1" "$out"; then
    echo "FAIL: no row matching '$1'"
    failures=$((failures + 1))
  fi
}
expect_row '^Tell to 100 active entities +[0-9]+ +[0-9]+ +[0-9.]+x$'
expect_row '^Tell to a round-robin pool of 100 +[0-9]+ +[0-9]+ +[0-9.]+x$'
expect_row '^20000 entities touched once:$'
expect_row '^  active-entity-limit 2000 +[0-9]+ entities/s, peak heap \+-?[0-9.]+ MB$'
expect_row '^  no limit +[0-9]+ entities/s, peak heap \+-?[0-9.]+ MB$'

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
