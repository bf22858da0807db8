#!/usr/bin/env bash
# Smoke test of query_benchmark: `--quick` exits 0 and prints every row
# with its figures. No figure is checked: they depend on the machine.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/query_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: query_benchmark --quick exited with $status"
  exit 1
fi

failures=0
expect_row() {  # expect_row PATTERN: a row matching the extended regex
  if ! grep -Eq -- "$1" "$out"; then
    echo "FAIL: no row matching '$1'"
    failures=$((failures + 1))
  fi
}
rate=' +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+x  '
expect_row "^CurrentEventsByTag, [0-9]+ events, Pull\(1000\)${rate}raw RocksDB: tags scan \+ Get$"
expect_row "^Persist Tagged, 1000 actors x [0-9]+, fsync off${rate}Persist untagged$"
expect_row '^live EventsByTag, 1000 actors x [0-9]+ events, Pull\(1000\) +events +p50 us +p99 us$'
for what in 'persist call -> persist handler' 'persist call -> delivery' \
  'persist handler -> delivery'; do
  expect_row "^  $what +[0-9]+ +-?[0-9]+ +-?[0-9]+$"
done
expect_row '^cores: [0-9]'
expect_row '^RocksDB: [0-9]'

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
