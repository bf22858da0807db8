#!/usr/bin/env bash
# The bank's command line: the demo twice (the second run continues from
# the first), balances (values and numeric sorting; the store unchanged by
# reading), report (kept by a projection, incremental), the default and
# relative data directories, exit code 2 with a
# one-line error for bad arguments (a flag given twice) and unusable
# directories (a read-only store); balances reads in place (it needs no
# $TMPDIR) and a signal ends it with the store unchanged; balances and
# report beside a load writing the store (a secondary instance, its files
# in $TMPDIR removed at the end); --accounts beyond the accounts kept in
# memory; --journal's usage
# errors and an unreachable server, the URL never printed (on a server:
# postgres_cli_test.sh); serve's answers to commands on stdin, and its
# usage errors (leases only with --journal).
set -euo pipefail

BANK="$1"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/cli_test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# bank ARGS... with a time limit, run through the command in AS (if any);
# stdout to $WORK/out, stderr to $WORK/err.
AS=()
run() {
  set +e
  timeout 60 "${AS[@]}" "$BANK" "$@" >"$WORK/out" 2>"$WORK/err"
  status=$?
  set -e
}

expect_line() {  # FILE LINE: LINE is one of FILE's lines, exactly
  grep -qxF -- "$2" "$1" || {
    cat "$1" >&2
    fail "no line '$2' in the output above"
  }
}

expect_error() {  # TEXT: stderr holds TEXT
  grep -qF -- "$1" "$WORK/err" || fail "no '$1' in the error: $(cat "$WORK/err")"
}

expect_usage_error() {  # ARGS...: exit 2, one line on stderr, none on stdout
  run "$@"
  [[ $status -eq 2 ]] || fail "bank $*: exit $status, not 2: $(cat "$WORK/err")"
  [[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "bank $*: stderr not one line: $(cat "$WORK/err")"
  [[ ! -s "$WORK/out" ]] || fail "bank $*: wrote to stdout"
}

# Every file of a store with its checksum.
fingerprint() {
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum)
}

echo "--- demo, twice"
run demo --data "$WORK/demo"
[[ $status -eq 0 ]] || fail "demo: exit $status: $(cat "$WORK/err")"
expect_line "$WORK/out" "Found at start: nothing, the store is new."
grep -q "withdraw 500 from account 2 .*-> refused: insufficient funds" "$WORK/out" ||
  fail "the refused withdrawal is not shown"
grep -q "snapshot of account 1 .*-> saved at event 3" "$WORK/out" ||
  fail "the snapshot is not shown"
grep -q "Simulated crash" "$WORK/out" || fail "no crash in the story"
expect_line "$WORK/out" "  account 1: balance 75, last event 4 (snapshot at event 3 + 1 event replayed)"
expect_line "$WORK/out" "  account 2: balance 50, last event 2 (2 events replayed)"

run demo --data "$WORK/demo"
[[ $status -eq 0 ]] || fail "second demo: exit $status: $(cat "$WORK/err")"
grep -q "^Found at start (recovered" "$WORK/out" || fail "the second run found nothing"
# What the first run left is found at the start of the second.
sed -n '/^Found at start/,/^$/p' "$WORK/out" >"$WORK/found"
expect_line "$WORK/found" "  account 1: balance 75, last event 4 (snapshot at event 3 + 1 event replayed)"
expect_line "$WORK/found" "  account 2: balance 50, last event 2 (2 events replayed)"
expect_line "$WORK/out" "  account 1: balance 150, last event 7 (snapshot at event 6 + 1 event replayed)"
expect_line "$WORK/out" "  account 2: balance 100, last event 3 (3 events replayed)"

run balances --data "$WORK/demo"
[[ $status -eq 0 ]] || fail "balances: exit $status: $(cat "$WORK/err")"
printf '1 150 7\n2 100 3\n' | diff - "$WORK/out" || fail "balances after the demo"

echo "--- load, then balances sorted by account number"
run load --data "$WORK/load" --accounts 12 --ops 30
[[ $status -eq 0 ]] || fail "load: exit $status: $(cat "$WORK/err")"
[[ $(grep -c '^ack ' "$WORK/out") -eq 30 ]] || fail "load: not 30 acks"
expect_line "$WORK/out" "ack 11 12"
expect_line "$WORK/out" "ack 5 30"
grep -qE '^[0-9]+ events/s' "$WORK/err" || fail "load: no rate on stderr: $(cat "$WORK/err")"
grep -q $'\r' "$WORK/err" && fail "load: a progress bar although stderr is no terminal"

fingerprint "$WORK/load" >"$WORK/before"
run balances --data "$WORK/load"
[[ $status -eq 0 ]] || fail "balances: exit $status: $(cat "$WORK/err")"
# Deposit i (amount i+1) went to account i % 12; each account's events are
# its Opened plus its deposits.
awk 'BEGIN { for (i = 0; i < 30; i++) { b[i % 12] += i + 1; n[i % 12]++ }
             for (a = 0; a < 12; a++) print a, b[a], n[a] + 1 }' >"$WORK/expected"
diff "$WORK/expected" "$WORK/out" || fail "balances after the load (expected left)"
fingerprint "$WORK/load" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "balances changed the store"

echo "--- data directories: the default, relative to where bazel run started"
TMPDIR="$WORK/tmp" run demo
[[ $status -eq 0 ]] || fail "demo without --data: exit $status: $(cat "$WORK/err")"
grep -qF "store at $WORK/tmp/cairn-bank" "$WORK/out" || fail "the default directory is not named"
grep -q "(the default" "$WORK/out" || fail "not said to be the default"
[[ -f "$WORK/tmp/cairn-bank/CURRENT" ]] || fail "no store in the default directory"
mkdir -p "$WORK/started-here"
BUILD_WORKING_DIRECTORY="$WORK/started-here" run demo --data relative/bank
[[ $status -eq 0 ]] || fail "demo with a relative --data: exit $status"
[[ -f "$WORK/started-here/relative/bank/CURRENT" ]] || fail "relative --data not taken from BUILD_WORKING_DIRECTORY"

echo "--- bad arguments and unusable directories: exit 2"
touch "$WORK/a-file"
expect_usage_error
expect_usage_error frobnicate
expect_usage_error demo --bogus
expect_usage_error demo --data
expect_usage_error balances --fsync
expect_usage_error load --data "$WORK/x" --accounts 3
expect_usage_error load --data "$WORK/x" --accounts 0 --ops 5
expect_usage_error load --data "$WORK/x" --accounts 3 --ops many
expect_usage_error balances --data "$WORK/nowhere"
[[ ! -e "$WORK/nowhere" ]] || fail "balances created its directory"
expect_usage_error balances --data "$WORK/a-file"
expect_usage_error balances --data "$WORK/tmp"  # a directory without a store
expect_usage_error demo --data "$WORK/a-file/below"
[[ ! -e "$WORK/x" ]] || fail "a refused load created its directory"
expect_usage_error serve --data "$WORK/x" --owner me
expect_usage_error serve --data "$WORK/x" --lease-ttl 5
expect_usage_error serve --journal "postgresql://u@h/db" --lease-ttl 0
expect_usage_error serve --journal "postgresql://u@h/db" --owner ""
expect_usage_error load --data "$WORK/x" --accounts 1 --ops 1 --owner me
[[ ! -e "$WORK/x" ]] || fail "a refused serve created its directory"

echo "--- serve: commands on stdin, one answer per command on stdout"
printf '%s\n' "a open 5" "b deposit 5 70" "c withdraw 5 100" "d balance 5" \
  "e deposit 6 1" "f frobnicate 5" "g deposit 5" >"$WORK/serve-in"
set +e
timeout 60 "$BANK" serve --data "$WORK/serve" <"$WORK/serve-in" >"$WORK/out" 2>"$WORK/err"
status=$?
set -e
[[ $status -eq 0 ]] || fail "serve: exit $status: $(cat "$WORK/err")"
expect_line "$WORK/out" "ready"
expect_line "$WORK/out" "a done 5 0 1"
expect_line "$WORK/out" "b done 5 70 2"
grep -qx "c refused 5 insufficient funds: .*" "$WORK/out" || fail "no refused withdrawal: $(cat "$WORK/out")"
expect_line "$WORK/out" "d done 5 70 2"
expect_line "$WORK/out" "e refused 6 there is no account 6"
grep -qx "f bad unknown command 'frobnicate'.*" "$WORK/out" || fail "no answer to a bad command: $(cat "$WORK/out")"
expect_line "$WORK/out" "g bad deposit takes ACCOUNT AMOUNT"
[[ $(wc -l <"$WORK/out") -eq 8 ]] || fail "serve: not one answer per command: $(cat "$WORK/out")"
run balances --data "$WORK/serve"
expect_line "$WORK/out" "5 70 2"

echo "--- --journal and --schema: usage errors that never print the URL"
secret_url="postgresql://bank:cairn-secret-pw@127.0.0.1:1/bank"
expect_usage_error balances --journal "http://cairn-secret-pw@example.com/"
expect_error "--journal needs a postgresql:// or postgres:// URL"
expect_usage_error balances --journal="file://cairn-secret-pw"
# libpq's reasons for these quote the URL.
for bad in 'postgresql://bank:cairn-secret-pw@[::1/db' \
  'postgresql://bank:cairn-secret-pw%zz@127.0.0.1:1/db' \
  'postgres://bank:cairn-secret-pw@127.0.0.1:1/db?no-such-option=1'; do
  expect_usage_error load --journal "$bad" --accounts 1 --ops 1
  expect_error "--journal: libpq cannot parse the URL"
  grep -q "cairn-secret-pw" "$WORK/err" && fail "the URL was printed: $(cat "$WORK/err")"
done
expect_usage_error report --journal "$secret_url" --lease-ttl 5
expect_error "--lease-ttl is an option of serve only"
expect_usage_error report --schema bank
expect_error "--schema needs --journal"
expect_usage_error balances --schema bank
expect_error "--schema needs --journal"
expect_usage_error balances --data "$WORK/demo" --journal "$secret_url"
expect_error "--data and --journal cannot both be given"
expect_usage_error load --journal "$secret_url" --accounts 1 --ops 1 --fsync
expect_error "--fsync is for the RocksDB store"
expect_usage_error balances --journal "$secret_url" --journal "$secret_url"
expect_usage_error bogus-command --journal="$secret_url"
expect_usage_error help --journal="$secret_url"
grep -q "cairn-secret-pw" "$WORK/err" && fail "the URL was printed: $(cat "$WORK/err")"

echo "--- --journal to a server that does not answer: exit 1, libpq's words, no password"
for command in balances demo report "load --accounts 1 --ops 1"; do
  # shellcheck disable=SC2086  # the command's words
  TMPDIR="$WORK/tmp-untouched" run $command --journal "$secret_url"
  [[ $status -eq 1 ]] || fail "$command on no server: exit $status: $(cat "$WORK/err")"
  [[ $(wc -l <"$WORK/err") -eq 1 ]] || fail "$command on no server: stderr not one line: $(cat "$WORK/err")"
  expect_error 'connection to server at "127.0.0.1", port 1 failed'
  grep -q "cairn-secret-pw" "$WORK/out" "$WORK/err" && fail "the password was printed: $(cat "$WORK/err")"
  [[ ! -e "$WORK/tmp-untouched" ]] || fail "$command --journal made a data directory"
done

echo "--- a flag given twice: exit 2"
expect_usage_error balances --data "$WORK/demo" --data "$WORK/demo"
expect_error "--data given twice"
expect_usage_error demo --data="$WORK/x" --data "$WORK/y"
expect_usage_error load --data "$WORK/x" --accounts 1 --accounts 2 --ops 1
expect_error "--accounts given twice"
expect_usage_error load --data "$WORK/x" --accounts 1 --ops 1 --ops=2
expect_usage_error load --data "$WORK/x" --accounts 1 --ops 1 --fsync --fsync
[[ ! -e "$WORK/x" ]] || fail "a refused load created its directory"

echo "--- a store whose files are read-only: load exits 2, balances reads it"
# As root, permission bits stop nobody; in a user namespace of its own
# (unshare -U, no mapping) the process has no power over root's files.
if unshare -U true 2>/dev/null; then
  cp -r "$WORK/load" "$WORK/readonly"
  chmod a-w "$WORK/readonly"/*
  fingerprint "$WORK/readonly" >"$WORK/before"
  AS=(unshare -U)
  expect_usage_error load --data "$WORK/readonly" --accounts 1 --ops 1
  expect_error "cannot use data directory $WORK/readonly"
  expect_error "Permission denied"
  run balances --data "$WORK/readonly"
  AS=()
  [[ $status -eq 0 ]] || fail "balances of a read-only store: exit $status: $(cat "$WORK/err")"
  diff "$WORK/expected" "$WORK/out" || fail "balances of the read-only store"
  fingerprint "$WORK/readonly" >"$WORK/after"
  diff "$WORK/before" "$WORK/after" || fail "the read-only store changed"
else
  echo "SKIP: unshare -U is not available here"
fi

echo "--- balances reads the store in place: no TMPDIR needed, nothing written there"
mkdir "$WORK/emptytmp"
for tmp in "$WORK/no-such-dir" "$WORK/a-file" "$WORK/emptytmp"; do
  TMPDIR="$tmp" run balances --data "$WORK/load"
  [[ $status -eq 0 ]] || fail "balances with TMPDIR=$tmp: exit $status: $(cat "$WORK/err")"
  diff "$WORK/expected" "$WORK/out" || fail "balances with TMPDIR=$tmp"
done
[[ -z "$(find "$WORK/emptytmp" -mindepth 1)" ]] || fail "balances wrote to TMPDIR"

echo "--- a signal during balances ends it as it ends any program; the store unchanged"
run load --data "$WORK/many" --accounts 10000 --ops 10000
[[ $status -eq 0 ]] || fail "load of 10000 accounts: exit $status: $(cat "$WORK/err")"
fingerprint "$WORK/many" >"$WORK/before"
# Its output (over 100 KiB) goes to a pipe read one line only, so balances
# cannot finish before it is signalled: once it has printed its first
# line, it has the store open and blocks writing the rest.
for signal in INT TERM; do
  mkfifo "$WORK/fifo-$signal"
  exec 3<>"$WORK/fifo-$signal"
  # env: a background job's SIGINT would be ignored.
  env --default-signal=INT,TERM \
    "$BANK" balances --data "$WORK/many" >"$WORK/fifo-$signal" 2>"$WORK/err" &
  pid=$!
  read -r -t 300 first <&3 || fail "SIG$signal: balances printed nothing in 300 s"
  kill -s "$signal" "$pid"
  set +e
  wait "$pid"
  status=$?
  set -e
  exec 3>&-
  [[ $status -eq $((128 + $(kill -l "$signal"))) ]] ||
    fail "balances after SIG$signal: exit $status: $(cat "$WORK/err")"
done
fingerprint "$WORK/many" >"$WORK/after"
diff "$WORK/before" "$WORK/after" || fail "an interrupted balances changed the store"

echo "--- report: a projection's read model, brought up to date incrementally"
run load --data "$WORK/report" --accounts 2 --ops 4
[[ $status -eq 0 ]] || fail "load: exit $status: $(cat "$WORK/err")"
run report --data "$WORK/report"
[[ $status -eq 0 ]] || fail "report: exit $status: $(cat "$WORK/err")"
# Deposits 1..4 to accounts 0, 1, 0, 1.
expect_line "$WORK/out" "total 0 4 0 2"
expect_line "$WORK/out" "total 1 6 0 2"
expect_line "$WORK/out" "largest 1 deposit 4 1"
expect_line "$WORK/out" "largest 4 deposit 1 0"
expect_error "bank report: 4 new movements since the last report"
run load --data "$WORK/report" --accounts 2 --ops 2
[[ $status -eq 0 ]] || fail "load: exit $status: $(cat "$WORK/err")"
run report --data "$WORK/report"
[[ $status -eq 0 ]] || fail "report: exit $status: $(cat "$WORK/err")"
# Only the two new deposits (1 and 2) are handled, and added.
expect_error "bank report: 2 new movements since the last report"
expect_line "$WORK/out" "total 0 5 0 3"
expect_line "$WORK/out" "total 1 8 0 3"
run report --data "$WORK/report"
expect_error "bank report: 0 new movements since the last report"
expect_line "$WORK/out" "total 0 5 0 3"
run balances --data "$WORK/report"
expect_line "$WORK/out" "0 5 4"

echo "--- a store in use by another process: balances and report read it as at their start"
"$BANK" load --data "$WORK/busy" --accounts 2 --ops 100000000 \
  >"$WORK/busy.out" 2>/dev/null &
busy=$!
trap 'kill -9 $busy 2>/dev/null || true; rm -rf "$WORK"' EXIT
for ((i = 0; i < 300; i++)); do
  [[ $(grep -c '^ack 1 ' "$WORK/busy.out") -ge 2 ]] && break
  sleep 0.1
done
[[ $(grep -c '^ack 1 ' "$WORK/busy.out") -ge 2 ]] ||
  fail "the background load acknowledged too little in 30 s"
# Acknowledged before balances starts: stored before it opens the store.
acked_before=$(grep -c '^ack 1 ' "$WORK/busy.out")
mkdir "$WORK/readtmp"
TMPDIR="$WORK/readtmp" run balances --data "$WORK/busy"
[[ $status -eq 0 ]] || fail "balances of a store in use: exit $status: $(cat "$WORK/err")"
expect_error "in use by process $busy"
expect_error "read as it is at"
# Deposit i is of i + 1 to account i % 2: account 0 holds 1 + 3 + ... (k
# terms: k * k), account 1 holds 2 + 4 + ... (k * (k + 1)), k = LAST_SEQ_NR
# - 1. Each balance is its deposits at one moment, the acknowledged ones
# at least.
[[ $(wc -l <"$WORK/out") -eq 2 ]] || fail "balances of a store in use: $(cat "$WORK/out")"
while read -r account balance last; do
  k=$((last - 1))
  if [[ $account -eq 0 ]]; then want=$((k * k)); else want=$((k * (k + 1))); fi
  [[ $balance -eq $want ]] || fail "account $account: balance $balance after $k deposits"
done <"$WORK/out"
k1=$(($(awk '$1 == 1 { print $3 }' "$WORK/out") - 1))
[[ $k1 -ge $acked_before ]] ||
  fail "account 1: $k1 deposits read, $acked_before acknowledged before balances"
[[ -z "$(find "$WORK/readtmp" -mindepth 1)" ]] || fail "balances left files in TMPDIR"
TMPDIR="$WORK/readtmp" run report --data "$WORK/busy"
[[ $status -eq 0 ]] || fail "report of a store in use: exit $status: $(cat "$WORK/err")"
expect_error "read as it is at"
grep -q "^total 0 " "$WORK/out" || fail "report of a store in use: $(cat "$WORK/out")"
kill -9 "$busy"
wait "$busy" 2>/dev/null || true

# (More accounts than the old cap of 100,000 are accepted: args_test; more
# accounts than are kept in memory: active_accounts_test, with a small
# limit, as opening 100,001 accounts takes minutes under the sanitizers.)
echo "--- the bound of --accounts"
expect_usage_error load --data "$WORK/x" --accounts 1000000001 --ops 1
expect_error "--accounts must be a whole number from 1 to 1000000000"

run help
{ [[ $status -eq 0 ]] && grep -q "^usage: bank" "$WORK/out"; } || fail "help"

echo "PASS"
