#!/usr/bin/env bash
# The bank's command line on PostgreSQL (--journal URL --schema NAME), on
# the server CAIRN_TEST_POSTGRES_URL names (docs/POSTGRESQL.md, "Testing
# against PostgreSQL"): load acknowledges deposits and balances prints
# balances that add up to them; a second load continues from the stored
# state; report counts the new movements only, each run, its totals those
# of the deposits, and each schema has its own; two reports at once count
# each movement once (one may fail, saying why); the demo's story,
# snapshot included; the URL, and a password in it, never printed.
# Skipped, saying so, without the variable or without a server answering
# at it, unless CAIRN_TEST_POSTGRES_REQUIRED=1.
#
# Each run uses schemas of its own (bank_test_<random hex>), dropped at the
# end with psql if there is one.
set -euo pipefail

BANK="$1"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/postgres_cli_test.XXXXXX")"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

skip() {
  if [[ "${CAIRN_TEST_POSTGRES_REQUIRED:-}" == 1 ]]; then
    fail "$* (and CAIRN_TEST_POSTGRES_REQUIRED=1)"
  fi
  echo "PostgreSQL tests skipped: $*"
  echo "PASS (skipped)"
  exit 0
}

URL="${CAIRN_TEST_POSTGRES_URL:-}"
[[ -n "$URL" ]] || skip "CAIRN_TEST_POSTGRES_URL is not set (docs/POSTGRESQL.md)"

SCHEMA="bank_test_$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
DEMO_SCHEMA="${SCHEMA}_demo"
RACE_SCHEMA="${SCHEMA}_race"
cleanup() {
  if command -v psql >/dev/null; then
    for s in "$SCHEMA" "$DEMO_SCHEMA" "$RACE_SCHEMA"; do
      PGCONNECT_TIMEOUT=5 timeout 30 psql "$URL" -q -v ON_ERROR_STOP=1 \
        -c "DROP SCHEMA IF EXISTS $s CASCADE" >/dev/null 2>&1 || true
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# The same server with a password in the URL (trust authentication ignores
# it), to check that it is never printed; the URL as given if its form
# leaves no place for one.
SECRET="cairn-test-secret-$RANDOM"
URL_WITH_PASSWORD="$(sed -E "s#^(postgres(ql)?://)([^:@/]+)@#\\1\\3:$SECRET@#" <<<"$URL")"

# bank ARGS... with a time limit; stdout to $WORK/out, stderr to $WORK/err.
run() {
  set +e
  timeout 120 "$BANK" "$@" >"$WORK/out" 2>"$WORK/err"
  status=$?
  set -e
  if grep -qF -- "$URL_WITH_PASSWORD" "$WORK/out" "$WORK/err" ||
    grep -qF -- "$SECRET" "$WORK/out" "$WORK/err"; then
    fail "bank $1 printed the connection string or its password"
  fi
}

expect_line() {  # FILE LINE: LINE is one of FILE's lines, exactly
  grep -qxF -- "$2" "$1" || {
    cat "$1" >&2
    fail "no line '$2' in the output above"
  }
}

# The balances `bank balances` prints after loads of OPS... deposits to
# ACCOUNTS accounts each (deposit i, amount i+1, to account i % ACCOUNTS):
# "ACCOUNT BALANCE LAST_SEQ_NR", each account's events its Opened and its
# deposits.
expected_balances() {  # ACCOUNTS OPS...
  awk -v accounts="$1" -v loads="${*:2}" 'BEGIN {
    split(loads, ops, " ")
    for (l in ops) for (i = 0; i < ops[l]; i++) {
      b[i % accounts] += i + 1; n[i % accounts]++
    }
    for (a = 0; a < accounts; a++) print a, b[a], n[a] + 1
  }'
}

# What `bank report` prints after loads of OPS... deposits to ACCOUNTS
# accounts each: "total ACCOUNT DEPOSITED 0 MOVEMENTS" for every account
# with a deposit, then the ten largest, the earlier of equal amounts first.
expected_report() {  # ACCOUNTS OPS...
  awk -v accounts="$1" -v loads="${*:2}" 'BEGIN {
    n_loads = split(loads, ops, " ")
    for (l = 1; l <= n_loads; l++) for (i = 0; i < ops[l]; i++) {
      a = i % accounts; deposited[a] += i + 1; count[a]++
      amount[++m] = i + 1; account[m] = a
    }
    for (a = 0; a < accounts; a++) {
      if (count[a]) print "total", a, deposited[a], 0, count[a]
    }
    for (rank = 1; rank <= 10 && rank <= m; rank++) {
      best = 0
      for (k = 1; k <= m; k++) {
        if (!taken[k] && (best == 0 || amount[k] > amount[best])) best = k
      }
      taken[best] = 1
      print "largest", rank, "deposit", amount[best], account[best]
    }
  }'
}

# bank report on SCHEMA: exit 0, NEW movements handled, stdout as expected
# (on stdin).
expect_report() {  # SCHEMA NEW
  run report --journal "$URL_WITH_PASSWORD" --schema "$1"
  [[ $status -eq 0 ]] || fail "report on $1: exit $status: $(cat "$WORK/err")"
  expect_line "$WORK/err" "bank report: $2 new movements since the last report"
  diff - "$WORK/out" || fail "the report on $1 (expected left)"
}

sum_acks() { awk '$1 == "ack" { s += $3 } END { print s + 0 }' "$WORK/out"; }
sum_balances() { awk '{ s += $2 } END { print s + 0 }' "$WORK/out"; }

echo "--- load on schema $SCHEMA"
run load --journal "$URL_WITH_PASSWORD" --schema "$SCHEMA" --accounts 7 --ops 40
if [[ $status -ne 0 ]] && grep -q "cannot connect" "$WORK/err"; then
  skip "no PostgreSQL server answers at CAIRN_TEST_POSTGRES_URL: $(cat "$WORK/err")"
fi
[[ $status -eq 0 ]] || fail "load: exit $status: $(cat "$WORK/err")"
[[ $(grep -c '^ack ' "$WORK/out") -eq 40 ]] || fail "load: not 40 acks"
grep -qE '^[0-9]+ events/s .*on PostgreSQL' "$WORK/err" || fail "load: no rate on stderr: $(cat "$WORK/err")"
acked=$(sum_acks)

echo "--- balances: they add up to the acknowledged deposits"
run balances --journal "$URL_WITH_PASSWORD" --schema "$SCHEMA"
[[ $status -eq 0 ]] || fail "balances: exit $status: $(cat "$WORK/err")"
[[ $(sum_balances) -eq $acked ]] || fail "balances sum to $(sum_balances), $acked acknowledged"
expected_balances 7 40 | diff - "$WORK/out" || fail "balances after the load (expected left)"

echo "--- report: the 40 movements, the totals those of the deposits"
expected_report 7 40 | expect_report "$SCHEMA" 40

echo "--- a second load continues from the stored state"
run load --journal="$URL_WITH_PASSWORD" --schema="$SCHEMA" --accounts 7 --ops 10
[[ $status -eq 0 ]] || fail "second load: exit $status: $(cat "$WORK/err")"
[[ $(grep -c '^ack ' "$WORK/out") -eq 10 ]] || fail "second load: not 10 acks"
acked=$((acked + $(sum_acks)))
run balances --journal "$URL_WITH_PASSWORD" --schema "$SCHEMA"
[[ $status -eq 0 ]] || fail "balances: exit $status: $(cat "$WORK/err")"
[[ $(sum_balances) -eq $acked ]] || fail "balances sum to $(sum_balances), $acked acknowledged"
expected_balances 7 40 10 | diff - "$WORK/out" || fail "balances after two loads (expected left)"

echo "--- report again: only the 10 new movements handled, and added"
expected_report 7 40 10 | expect_report "$SCHEMA" 10
expected_report 7 40 10 | expect_report "$SCHEMA" 0

echo "--- another schema of the same server holds other accounts"
run balances --journal "$URL_WITH_PASSWORD" --schema "$DEMO_SCHEMA"
[[ $status -eq 0 ]] || fail "balances of a new schema: exit $status: $(cat "$WORK/err")"
[[ ! -s "$WORK/out" ]] || fail "a new schema has accounts: $(cat "$WORK/out")"
expect_report "$DEMO_SCHEMA" 0 </dev/null

echo "--- the demo, twice, on schema $DEMO_SCHEMA"
run demo --journal "$URL_WITH_PASSWORD" --schema "$DEMO_SCHEMA"
[[ $status -eq 0 ]] || fail "demo: exit $status: $(cat "$WORK/err")"
grep -qF "in the PostgreSQL journal (schema $DEMO_SCHEMA)" "$WORK/out" || fail "demo: where is not said"
expect_line "$WORK/out" "Found at start: nothing, the store is new."
expect_line "$WORK/out" "  account 1: balance 75, last event 4 (snapshot at event 3 + 1 event replayed)"
expect_line "$WORK/out" "  account 2: balance 50, last event 2 (2 events replayed)"
run demo --journal "$URL_WITH_PASSWORD" --schema "$DEMO_SCHEMA"
[[ $status -eq 0 ]] || fail "second demo: exit $status: $(cat "$WORK/err")"
expect_line "$WORK/out" "  account 1: balance 150, last event 7 (snapshot at event 6 + 1 event replayed)"
expect_line "$WORK/out" "  account 2: balance 100, last event 3 (3 events replayed)"

echo "--- each schema its own report: the demos' movements on $DEMO_SCHEMA only"
expect_report "$DEMO_SCHEMA" 8 <<'EOF'
total 1 210 60 6
total 2 100 0 2
largest 1 deposit 100 1
largest 2 deposit 100 1
largest 3 deposit 50 2
largest 4 deposit 50 2
largest 5 withdrawal 30 1
largest 6 withdrawal 30 1
largest 7 deposit 5 1
largest 8 deposit 5 1
EOF
expected_report 7 40 10 | expect_report "$SCHEMA" 0

echo "--- two reports at once on one schema count each movement once"
run load --journal "$URL_WITH_PASSWORD" --schema "$RACE_SCHEMA" --accounts 7 --ops 3000
[[ $status -eq 0 ]] || fail "load for the race: exit $status: $(cat "$WORK/err")"
pids=()
for i in 1 2; do
  timeout 120 "$BANK" report --journal "$URL_WITH_PASSWORD" \
    --schema "$RACE_SCHEMA" >"$WORK/race$i.out" 2>"$WORK/race$i.err" &
  pids+=($!)
done
succeeded=0
for i in 1 2; do
  set +e
  wait "${pids[$((i - 1))]}"
  race_status=$?
  set -e
  case $race_status in
    0) succeeded=$((succeeded + 1)) ;;
    # Both handled the same movements: the other one committed first.
    1) grep -q "another run of it committed meanwhile" "$WORK/race$i.err" ||
      fail "report $i of two: $(cat "$WORK/race$i.err")" ;;
    *) fail "report $i of two: exit $race_status: $(cat "$WORK/race$i.err")" ;;
  esac
done
[[ $succeeded -ge 1 ]] || fail "neither of two reports at once succeeded"
run report --journal "$URL_WITH_PASSWORD" --schema "$RACE_SCHEMA"
[[ $status -eq 0 ]] || fail "report after the race: exit $status: $(cat "$WORK/err")"
expected_report 7 3000 | diff - "$WORK/out" ||
  fail "the report after two at once (expected left): a movement counted twice?"

echo "--- a bad schema name: exit 2, the URL not printed"
run balances --journal "$URL_WITH_PASSWORD" --schema "Not-A-Schema"
[[ $status -eq 2 ]] || fail "a bad schema: exit $status: $(cat "$WORK/err")"
grep -q "schema 'Not-A-Schema'" "$WORK/err" || fail "a bad schema: $(cat "$WORK/err")"

echo "PASS"
