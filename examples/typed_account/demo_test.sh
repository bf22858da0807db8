#!/usr/bin/env bash
# Runs the typed account's demo twice on one directory: the second run
# starts from the balance the first stored (70), and ends at 140.
set -euo pipefail
demo="${TEST_SRCDIR}/${TEST_WORKSPACE}/examples/typed_account/typed_account"
dir="$(mktemp -d "${TEST_TMPDIR:-/tmp}/typed-account.XXXXXX")"
first="$("$demo" --data "$dir")"
second="$("$demo" --data "$dir")"
expect() {
  if ! grep -qxF "$2" <<<"$1"; then
    echo "expected the line: $2" >&2
    echo "in:" >&2
    echo "$1" >&2
    exit 1
  fi
}
expect "$first" "alice starts with 0"
expect "$first" "withdraw 30: accepted, balance 70"
expect "$first" "withdraw 1000000: refused, balance 70 (insufficient funds)"
expect "$second" "alice starts with 70"
expect "$second" "withdraw 30: accepted, balance 140"
echo PASS
