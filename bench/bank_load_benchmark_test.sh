#!/usr/bin/env bash
# Smoke test of bank_load_benchmark: `--quick` exits 0 and prints both rows
# (fsync off and on) with their figures. No figure is checked: they depend
# on the machine.
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/bank_load_benchmark.out"

"$benchmark" --quick >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: bank_load_benchmark --quick exited with $status"
  exit 1
fi

failures=0
for fsync in off on; do
  if ! grep -Eq -- "^bank load, fsync $fsync +[0-9]+ +[0-9]+ +[0-9.]+x +>=0\.7x +[0-9]+$" "$out"; then
    echo "FAIL: no row for fsync $fsync"
    failures=$((failures + 1))
  fi
done

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
