#!/usr/bin/env bash
# Smoke test of postgres_benchmark: `--quick` on the test server exits 0
# and prints every row with its three figures (cairn, raw, ratio), the
# Akka.NET figures beside theirs and the recovery rows' CPU per event.
# Timing is never checked: the figures depend on the machine.
#
# The server is the PostgreSQL tests' (docs/POSTGRESQL.md): without
# CAIRN_TEST_POSTGRES_URL the test skips, saying so, as the benchmark's own
# server cannot start inside Bazel's sandbox as root; with
# CAIRN_TEST_POSTGRES_REQUIRED=1 it fails instead. (The test server runs
# with fsync off: the figures say so and mean nothing here.)
set -uo pipefail

benchmark="$1"
out="$TEST_TMPDIR/postgres_benchmark.out"

url="${CAIRN_TEST_POSTGRES_URL:-}"
if [ -z "$url" ]; then
  if [ "${CAIRN_TEST_POSTGRES_REQUIRED:-}" = 1 ]; then
    echo "FAIL: CAIRN_TEST_POSTGRES_URL is not set and CAIRN_TEST_POSTGRES_REQUIRED=1"
    exit 1
  fi
  echo "PostgreSQL tests skipped: CAIRN_TEST_POSTGRES_URL is not set (docs/POSTGRESQL.md)"
  echo "PASS (skipped)"
  exit 0
fi

"$benchmark" --quick --url "$url" >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: postgres_benchmark --quick exited with $status"
  exit 1
fi

failures=0
expect_row() {  # expect_row NAME: a line NAME followed by the figures
  if ! grep -F -- "$1 " "$out" |
    grep -Eq ' [0-9]+ +[0-9]+ +[0-9]+\.[0-9]+x '; then
    echo "FAIL: no row '$1' with its figures"
    failures=$((failures + 1))
  fi
}

for mode in Persist PersistAsync 'PersistAll(10)'; do
  for actors in 1 10 100 1000; do
    noun=actors
    [ "$actors" -eq 1 ] && noun=actor
    expect_row "$mode, $actors $noun"
  done
done
expect_row "recovery, 1000 actors x 10 events"
expect_row "recovery, 1 stream of"

# Akka.NET's figures: after each PersistAsync row and each recovery row.
anchors=$(grep -c 'Akka.NET Akka.Persistence.Sql (PostgreSQL), published: .*x its top (goal >= 10x)' "$out")
if [ "$anchors" -ne 6 ]; then
  echo "FAIL: $anchors Akka.NET lines instead of 6"
  failures=$((failures + 1))
fi
# The CPU per event of each recovery row (the server's is measured only
# where its processes are visible: not from inside the sandbox).
cpu=$(grep -cE '^  CPU per event: cairn [0-9.]+ us here \+ .*; raw [0-9.]+ us here' "$out")
if [ "$cpu" -ne 2 ]; then
  echo "FAIL: $cpu CPU lines instead of 2"
  failures=$((failures + 1))
fi
grep -q '^cores: [0-9]' "$out" || { echo "FAIL: no core count"; failures=$((failures + 1)); }
grep -q '^PostgreSQL: [0-9]' "$out" || { echo "FAIL: no PostgreSQL version"; failures=$((failures + 1)); }

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
