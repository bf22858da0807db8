#!/usr/bin/env bash
# A real full disk: the bank example on a small tmpfs. `bank load` runs
# until the disk is full and must fail with exit 1 and the reason (no space
# left on device), not die of a signal, with every acknowledged deposit in
# the store and no gap in any account. Once space is freed (the tmpfs grown),
# `bank load` writes again. `bank demo` on a full disk, and a new store on
# one, fail the same way.
#
# Needs root and a working `mount -t tmpfs`; says SKIPPED and passes
# without them. The mount is removed on every exit.
set -uo pipefail

BANK="$1"
WORK="$(mktemp -d "${TEST_TMPDIR:-/tmp}/disk_full.XXXXXX")"
MNT="$WORK/mnt"
mkdir -p "$MNT"
mounted=0
cleanup() {
  if [[ $mounted -eq 1 ]]; then
    umount "$MNT" || umount -l "$MNT"
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIPPED: not root, cannot mount a tmpfs"
  exit 0
fi
if ! mount -t tmpfs -o size=2m cairn-disk-full "$MNT" 2>"$WORK/mount.err"; then
  echo "SKIPPED: mount -t tmpfs failed here: $(cat "$WORK/mount.err")"
  exit 0
fi
mounted=1
# Bank's `balances` copies the store there, not to the full disk.
export TMPDIR="$WORK"

# bank ARGS... with a time limit; stdout to $WORK/out, stderr to $WORK/err.
run() {
  timeout 120 "$BANK" "$@" >"$WORK/out" 2>"$WORK/err"
  status=$?
}

# A failure for want of space: exit 1 (not a signal: 128 + N; not the
# timeout's 124), and the reason on stderr.
expect_disk_full() {  # WHAT
  [[ $status -ne 0 ]] || fail "$1 succeeded on a full disk"
  [[ $status -lt 124 ]] || fail "$1 died with exit status $status (a signal or a hang): $(tail -5 "$WORK/err")"
  [[ $status -eq 1 ]] || fail "$1: exit $status, not 1: $(tail -5 "$WORK/err")"
  grep -q "No space left on device" "$WORK/err" ||
    fail "$1: the reason is not given: $(tail -5 "$WORK/err")"
}

# Every account holds exactly its first k deposits, k at least the number
# acknowledged in $WORK/acks ("ack ACCOUNT AMOUNT" lines of every load so
# far), and its last sequence number is k + 1 (the opening, then k
# deposits): nothing acknowledged lost, no gap. Deposit i of a load of
# `accounts` accounts went to account i % accounts, amount i + 1, so the
# first k deposits to account a sum to k * (a + 1) + accounts * k * (k - 1) / 2
# for a single load.
check_store() {  # ACCOUNTS
  run balances --data "$MNT/bank"
  [[ $status -eq 0 ]] || fail "balances: exit $status: $(cat "$WORK/err")"
  awk -v n="$1" '
    FILENAME == ARGV[1] && $1 == "ack" { acked[$2]++; next }
    FILENAME == ARGV[2] {
      a = $1; k = $3 - 1
      expected = k * (a + 1) + n * k * (k - 1) / 2
      if ($2 != expected) {
        printf "account %s: balance %s, not the sum of its first %d deposits (%d)\n", a, $2, k, expected
        bad = 1
      }
      if (k < acked[a]) {
        printf "account %s: %d deposits stored, %d acknowledged\n", a, k, acked[a]
        bad = 1
      }
      seen[a] = 1
    }
    END {
      for (a in acked) if (!(a in seen)) { printf "account %s is missing\n", a; bad = 1 }
      exit bad
    }' "$WORK/acks" "$WORK/out" || fail "the store does not hold what was acknowledged"
}

echo "--- load until the disk is full"
run load --data "$MNT/bank" --accounts 10 --ops 100000 --fsync
cp "$WORK/out" "$WORK/acks"
expect_disk_full "load"
# It gives up once deposits keep failing, rather than try every one left.
grep -q "gave up after" "$WORK/err" ||
  fail "load did not give up on the full disk: $(tail -5 "$WORK/err")"
acked=$(grep -c '^ack ' "$WORK/acks")
[[ $acked -gt 0 ]] || fail "nothing was acknowledged before the disk filled"
echo "acknowledged $acked deposits; stderr said: $(tail -1 "$WORK/err")"
check_store 10

echo "--- demo on the full disk"
run demo --data "$MNT/bank"
expect_disk_full "demo"

echo "--- a new store on the full disk"
run demo --data "$MNT/new"
expect_disk_full "a new store"

echo "--- space freed: writes succeed again"
mount -o remount,size=16m "$MNT" || fail "could not grow the tmpfs"
rm -rf "$MNT/new"
run balances --data "$MNT/bank"
[[ $status -eq 0 ]] || fail "balances: exit $status: $(cat "$WORK/err")"
cp "$WORK/out" "$WORK/before"
run load --data "$MNT/bank" --accounts 10 --ops 10 --fsync
[[ $status -eq 0 ]] || fail "load after freeing space: exit $status: $(tail -5 "$WORK/err")"
[[ $(grep -c '^ack ' "$WORK/out") -eq 10 ]] || fail "load after freeing space: not every deposit acknowledged"
# Deposit i went to account i with amount i + 1: one more event each.
run balances --data "$MNT/bank"
[[ $status -eq 0 ]] || fail "balances: exit $status: $(cat "$WORK/err")"
awk '
  FILENAME == ARGV[1] { balance[$1] = $2; seq[$1] = $3; next }
  {
    if ($2 != balance[$1] + $1 + 1 || $3 != seq[$1] + 1) {
      printf "account %s: %s %s after, %s %s before\n", $1, $2, $3, balance[$1], seq[$1]
      bad = 1
    }
  }
  END { exit bad }' "$WORK/before" "$WORK/out" || fail "the deposits after freeing space are not stored"
echo "PASSED"
