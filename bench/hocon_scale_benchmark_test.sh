#!/usr/bin/env bash
# Smoke test of hocon_scale_benchmark: `--quick` exits 0 and prints every
# row with its figures. No figure is checked: they depend on the machine.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/hocon_scale_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: hocon_scale_benchmark --quick exited with $status"
  exit 1
fi

failures=0
expect_row() {  # expect_row PATTERN: a row matching the extended regex
  if ! grep -Eq -- "$1" "$out"; then
    echo "FAIL: no row matching '$1'"
    failures=$((failures + 1))
  fi
}
expect_row '^appends, 1000 lines +[0-9]+ bytes +[0-9.]+ ms$'
expect_row '^appends, 10000 lines +[0-9]+ bytes +[0-9.]+ ms$'
for what in 'parse' 'parse\+resolve\+JSON'; do
  expect_row "^10000 keys, $what +[0-9]+ bytes +[0-9.]+ ms +peak RSS +[0-9.]+ MB = +[0-9.]+x input +heap +[0-9.]+ MB = +[0-9.]+x input$"
done

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
