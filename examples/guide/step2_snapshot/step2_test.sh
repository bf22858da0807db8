#!/usr/bin/env bash
# Runs step 2 twice over one data directory: the second run recovers from
# the first run's snapshot (at event 2) and replays only event 3. The
# outputs are those docs/GUIDE.md shows.
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

# The first run: no snapshot yet.
run_and_expect <<'EOF'
recovered alice: balance 0 (snapshot at event 0, then 0 events replayed)
deposited 100: balance 100
deposited 50: balance 150
snapshot saved at event 2
deposited 25: balance 175
EOF

# The second run: the snapshot, then one event.
run_and_expect <<'EOF'
recovered alice: balance 175 (snapshot at event 2, then 1 events replayed)
deposited 100: balance 275
deposited 50: balance 325
snapshot saved at event 5
deposited 25: balance 350
EOF
echo PASS
