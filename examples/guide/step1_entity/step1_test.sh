#!/usr/bin/env bash
# Runs step 1 twice over one data directory: the second run recovers the
# first run's two deposits (docs/GUIDE.md, step 1).
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

expect "recovered alice: balance 0 after 0 events
deposited 100: balance 100
deposited 50: balance 150" "$(run)"

expect "recovered alice: balance 150 after 2 events
deposited 100: balance 250
deposited 50: balance 300" "$(run)"
echo PASS
