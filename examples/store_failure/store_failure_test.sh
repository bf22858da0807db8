#!/usr/bin/env bash
# Runs the store-failure story and checks its key lines. The behaviour
# asserted is the program's own check (exit 0 only if every counter
# recovered exactly its acknowledged count); no timing is asserted. A
# second run on the same --data directory continues from the first.
set -euo pipefail

PROGRAM="$1"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/store_failure_test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# PROGRAM ARGS... with a time limit; stdout to $WORK/out, stderr to $WORK/err.
run() {
  set +e
  timeout 120 "$PROGRAM" "$@" >"$WORK/out" 2>"$WORK/err"
  status=$?
  set -e
}

expect() {  # REGEX: a line of the output matches it
  grep -qE -- "$1" "$WORK/out" || {
    cat "$WORK/out" >&2
    fail "no line matching '$1' in the output above"
  }
}

echo "--- a fresh store"
run --data "$WORK/data"
[[ $status -eq 0 ]] || { cat "$WORK/out"; fail "exit $status: $(cat "$WORK/err")"; }
expect "^Part 1: a persistent counter under Backoff::OnStop"
expect "^  the counter recovered: count 0$"
expect "^  increment -> acknowledged: count 5 \(event 5\)$"
expect "^The store goes down"
expect "OnPersistFailure, event 6: UNAVAILABLE$"
expect "injected write failure$"
for n in 1 2 3 4; do
  expect "restart $n, [0-9]+ ms after the stop: recovering$"
done
expect "OnRecoveryFailure: UNAVAILABLE$"
expect "^The store comes back"
expect "recovered: count 5 \(acknowledged before the outage: 5\)$"
expect "^  increment -> acknowledged: count 8 \(event 8\)$"
expect "^Check: recovered count 5 == 5 acknowledged before the outage: OK$"
expect "^Part 2: 50 counters"
expect "all 50 counters have stopped on OnPersistFailure"
# The histogram: one '#' per counter, 50 in all.
total=$(grep -E '^ +[0-9]+- *[0-9]+ ms  #* [0-9]+$' "$WORK/out" |
  awk '{ n += $NF } END { print n + 0 }')
[[ $total -eq 50 ]] || { cat "$WORK/out"; fail "the histogram counts $total restarts, not 50"; }
expect "^Check: all 50 counters recovered their acknowledged count: OK$"

echo "--- the same store again: the counts go on"
run --data "$WORK/data"
[[ $status -eq 0 ]] || { cat "$WORK/out"; fail "second run: exit $status: $(cat "$WORK/err")"; }
expect "^  the counter recovered: count 8$"
expect "OnPersistFailure, event 14: UNAVAILABLE$"
expect "^Check: recovered count 13 == 13 acknowledged before the outage: OK$"
expect "^Check: all 50 counters recovered their acknowledged count: OK$"

echo "--- no --data: a temporary directory, removed at the end"
mkdir "$WORK/tmp"
TMPDIR="$WORK/tmp" run
[[ $status -eq 0 ]] || fail "without --data: exit $status: $(cat "$WORK/err")"
expect "^Events go to RocksDB in $WORK/tmp/cairn-store-failure\..* \(temporary\)"
[[ -z "$(ls -A "$WORK/tmp")" ]] || fail "the temporary directory was left behind"

echo "--- a relative --data is taken from where bazel run started"
mkdir "$WORK/started-here"
BUILD_WORKING_DIRECTORY="$WORK/started-here" run --data=relative/store
[[ $status -eq 0 ]] || fail "relative --data: exit $status: $(cat "$WORK/err")"
[[ -f "$WORK/started-here/relative/store/CURRENT" ]] || fail "no store under BUILD_WORKING_DIRECTORY"

echo "--- a bad argument or directory: exit 2"
run --bogus
[[ $status -eq 2 ]] || fail "--bogus: exit $status, not 2"
grep -q "^usage: store_failure" "$WORK/err" || fail "--bogus: no usage on stderr"
touch "$WORK/a-file"
run --data "$WORK/a-file/below"
[[ $status -eq 2 ]] || fail "--data below a file: exit $status, not 2"

echo "PASS"
