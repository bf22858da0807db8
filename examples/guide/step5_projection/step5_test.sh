#!/usr/bin/env bash
# Runs step 5 twice over one data directory: the projection counts the
# first run's deposits, and the second run's projection resumes after
# them, counting each deposit once (docs/GUIDE.md, step 5).
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

expect "projection starts after offset 0
projection completed at offset 3
account-alice: 150
account-bob: 30" "$(run)"

expect "projection starts after offset 3
projection completed at offset 6
account-alice: 300
account-bob: 60" "$(run)"
echo PASS
