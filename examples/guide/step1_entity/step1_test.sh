#!/usr/bin/env bash
# Runs step 1 twice over one data directory: the second run recovers the
# first run's two deposits. The outputs are those docs/GUIDE.md shows.
set -euo pipefail
program="$1"
data="$(mktemp -d "${TEST_TMPDIR:-/tmp}/guide.XXXXXX")"

# Runs the program on $data and compares its output with stdin.
run_and_expect() {
  local expected actual
  expected="$(cat)"
  actual="$(timeout 120 "$program" "$data")" || {
    echo "FAIL: exit $?" >&2
    exit 1
  }
  [ "$expected" = "$actual" ] && return 0
  printf 'FAIL: expected\n%s\ngot\n%s\n' "$expected" "$actual" >&2
  exit 1
}

# The first run: a new account.
run_and_expect <<'EOF'
recovered alice: balance 0 after 0 events
deposited 100: balance 100
deposited 50: balance 150
EOF

# The second run: the account recovers the first run's events.
run_and_expect <<'EOF'
recovered alice: balance 150 after 2 events
deposited 100: balance 250
deposited 50: balance 300
EOF
echo PASS
