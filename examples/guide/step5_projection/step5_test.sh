#!/usr/bin/env bash
# Runs step 5 twice over one data directory: the projection counts the
# first run's deposits, and the second run's projection resumes after
# them, counting each deposit once. The outputs are those docs/GUIDE.md
# shows.
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

# The first run: the projection starts from the beginning.
run_and_expect <<'EOF'
projection starts after offset 0
projection completed at offset 3
account-alice: 150
account-bob: 30
EOF

# The second run: it resumes after offset 3.
run_and_expect <<'EOF'
projection starts after offset 3
projection completed at offset 6
account-alice: 300
account-bob: 60
EOF
echo PASS
