#!/usr/bin/env bash
# Runs step 2 twice over one data directory: the second run recovers from
# the first run's snapshot (at event 2) and replays only event 3
# (docs/GUIDE.md, step 2).
set -euo pipefail
program="$1"
data="$(mktemp -d "${TEST_TMPDIR:-/tmp}/guide.XXXXXX")"

run() {  # the program's output, or the test fails with its error
  timeout 120 "$program" "$data" || { echo "FAIL: exit $?" >&2; exit 1; }
}
expect() {  # EXPECTED ACTUAL
  [ "$1" = "$2" ] && return 0
  printf 'FAIL: expected\n%s\ngot\n%s\n' "$1" "$2" >&2
  exit 1
}

expect "recovered alice: balance 0 (snapshot at event 0, then 0 events replayed)
deposited 100: balance 100
deposited 50: balance 150
snapshot saved at event 2
deposited 25: balance 175" "$(run)"

expect "recovered alice: balance 175 (snapshot at event 2, then 1 events replayed)
deposited 100: balance 275
deposited 50: balance 325
snapshot saved at event 5
deposited 25: balance 350" "$(run)"
echo PASS
