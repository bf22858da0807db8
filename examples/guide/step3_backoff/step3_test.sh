#!/usr/bin/env bash
# Runs step 3: a bad deposit stops the account, its BackoffSupervisor
# starts it again, and it recovers its balance. Only the order of what
# happens is checked, never how long it took. The output is what
# docs/GUIDE.md shows.
set -euo pipefail
program="$1"
data="$(mktemp -d "${TEST_TMPDIR:-/tmp}/guide.XXXXXX")"

actual="$(timeout 120 "$program" "$data" 2>"$data.err")" || {
  cat "$data.err" >&2
  echo "FAIL: exit $?" >&2
  exit 1
}
expected="$(cat <<'EOF'
recovered alice: balance 0 after 0 events
deposited 100: balance 100
depositing -5: the account throws and is stopped
recovered alice: balance 100 after 1 events
back: balance 100
deposited 50: balance 150
EOF
)"
if [ "$expected" != "$actual" ]; then
  printf 'FAIL: expected\n%s\ngot\n%s\n' "$expected" "$actual" >&2
  exit 1
fi
# The failure is logged (stderr), with the exception's text.
grep -q "a deposit must be positive, not -5" "$data.err" || {
  cat "$data.err" >&2
  echo "FAIL: the exception is not in the log above" >&2
  exit 1
}
echo PASS
