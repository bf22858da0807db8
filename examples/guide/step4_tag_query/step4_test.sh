#!/usr/bin/env bash
# Runs step 4 twice over one data directory: the query by tag lists the
# deposits of both accounts in the order they were stored, and the second
# run lists the first run's too (docs/GUIDE.md, step 4).
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

first="offset 1: account-alice event 1, deposited 100
offset 2: account-bob event 1, deposited 30
offset 3: account-alice event 2, deposited 50"
expect "$first" "$(run)"

expect "$first
offset 4: account-alice event 3, deposited 100
offset 5: account-bob event 2, deposited 30
offset 6: account-alice event 4, deposited 50" "$(run)"
echo PASS
