#!/usr/bin/env bash
# Runs step 4 twice over one data directory: the query by tag lists the
# deposits of both accounts in the order they were stored, and the second
# run lists the first run's too. The outputs are those docs/GUIDE.md shows.
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

# The first run.
run_and_expect <<'EOF'
offset 1: account-alice event 1, deposited 100
offset 2: account-bob event 1, deposited 30
offset 3: account-alice event 2, deposited 50
EOF

# The second run: the first run's events, then its own.
run_and_expect <<'EOF'
offset 1: account-alice event 1, deposited 100
offset 2: account-bob event 1, deposited 30
offset 3: account-alice event 2, deposited 50
offset 4: account-alice event 3, deposited 100
offset 5: account-bob event 2, deposited 30
offset 6: account-alice event 4, deposited 50
EOF
echo PASS
