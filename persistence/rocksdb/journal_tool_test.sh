#!/usr/bin/env bash
# Runs journal_tool as a user would, on a store written through the RocksDB
# plugins (testing/write_test_store), then on the same store damaged:
# output, exit codes, error lines, and that the store is never changed.
set -uo pipefail

tool="$TEST_SRCDIR/$TEST_WORKSPACE/persistence/rocksdb/journal_tool"
writer="$TEST_SRCDIR/$TEST_WORKSPACE/persistence/rocksdb/testing/write_test_store"
work="$TEST_TMPDIR/journal_tool"
rm -rf "$work"
mkdir -p "$work"
db="$work/store"
failures=0

check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    echo "FAIL $1"
    echo "  expected: $2"
    echo "  actual:   $3"
    failures=$((failures + 1))
  else
    echo "PASS $1"
  fi
}

contains() {  # contains NAME NEEDLE HAYSTACK
  case "$3" in
    *"$2"*) echo "PASS $1" ;;
    *)
      echo "FAIL $1"
      echo "  expected to contain: $2"
      echo "  actual: $3"
      failures=$((failures + 1))
      ;;
  esac
}

# Names, sizes and contents of every file of the store.
fingerprint() {
  (cd "$db" && find . -type f -print0 | sort -z | xargs -0 md5sum)
}

"$writer" "$db" || { echo "FAIL writing the store"; exit 1; }
before="$(fingerprint)"

# --- ids ---------------------------------------------------------------------
out="$("$tool" --db "$db" ids)"
check "ids exit code" "0" "$?"
expected='{"id":"p-1","highest_sequence_nr":5,"events":5}
{"id":"p-2","highest_sequence_nr":3,"events":1}
{"id":"odd\"id\n","highest_sequence_nr":1,"events":1}'
check "ids lists every stream in key order" "$expected" "$out"
check "--db=DIR works too" "$expected" "$("$tool" ids --db="$db")"

# --- dump --------------------------------------------------------------------
out="$("$tool" --db "$db" dump --id p-1)"
check "dump exit code" "0" "$?"
check "dump prints one line per event" "5" "$(printf '%s\n' "$out" | wc -l)"
check "dump prints every envelope field" \
  '{"id":"p-1","seq":2,"manifest":"","serializer_id":1,"writer":"writer-1","timestamp":2000,"tags":["tag-a","tag-b"],"payload_size":3,"text":"a-2"}' \
  "$(printf '%s\n' "$out" | sed -n 2p)"
out="$("$tool" --db "$db" dump --id p-2)"
contains "dump of a codec payload" \
  '{"id":"p-2","seq":3,"manifest":"cairn.test.Amount","serializer_id":2,"writer":"writer-1","timestamp":3000,"tags":[],"payload_size":' \
  "$out"
case "$out" in
  *'"text"'*) check "dump of a codec payload has no text" "no text" "$out" ;;
  *) echo "PASS dump of a codec payload has no text" ;;
esac
check "dump escapes ids and text as JSON" \
  '{"id":"odd\"id\n","seq":1,"manifest":"","serializer_id":1,"writer":"writer-1","timestamp":1000,"tags":[],"payload_size":8,"text":"café \u00ff\u0001"}' \
  "$("$tool" --db "$db" dump --id $'odd"id\n')"
out="$("$tool" --db "$db" dump --id nobody 2>"$work/stderr")"
check "dump of an unknown id: exit 2" "2" "$?"
check "dump of an unknown id: nothing on stdout" "" "$out"
contains "dump of an unknown id: says there is no such stream" \
  "journal_tool: no stream with persistence id \"nobody\" in $db" \
  "$(cat "$work/stderr")"

# --- check -------------------------------------------------------------------
out="$("$tool" --db "$db" check)"
check "check of a sound store: exit 0" "0" "$?"
check "check of a sound store: summary" \
  "checked 7 events, 1 snapshots, 1 stream metadata records, 4 write-ahead log records: 0 problems" "$out"

check "reading never changes the store" "$before" "$(fingerprint)"

# --- bad arguments and unreadable stores -------------------------------------
usage_error() {  # usage_error NAME ARGS...
  local name="$1"
  shift
  local err code
  err="$("$tool" "$@" 2>&1 >/dev/null)"
  code=$?
  check "$name: exit 2" "2" "$code"
  check "$name: one line on stderr" "1" "$(printf '%s\n' "$err" | wc -l)"
  contains "$name: says journal_tool" "journal_tool: " "$err"
}
usage_error "no arguments"
usage_error "no command" --db "$db"
usage_error "no --db" ids
usage_error "unknown command" --db "$db" list
usage_error "unknown option" --db "$db" ids --verbose
usage_error "dump without --id" --db "$db" dump
usage_error "--id without a value" --db "$db" dump --id
usage_error "two commands" --db "$db" ids check
usage_error "--db twice" --db "$db" --db "$db" ids
usage_error "--id twice" --db "$db" dump --id p-1 --id=p-2
usage_error "--confirm for another command" --db "$db" check --confirm
usage_error "--confirm twice" --db "$db" salvage --confirm --confirm
usage_error "missing directory" --db "$work/nowhere" ids
mkdir -p "$work/empty"
usage_error "empty directory" --db "$work/empty" check
echo "not a database" > "$work/file"
usage_error "a file" --db "$work/file" check
check "the empty directory is left empty" "" "$(ls -A "$work/empty")"

# A directory the user may not read (not even list, or list but not enter):
# as root, the tool runs as nobody.
unreadable="$(mktemp -d /tmp/journal_tool_test.XXXXXX)"  # nobody may reach it
trap 'rm -rf "$unreadable"' EXIT
chmod 755 "$unreadable"
cp "$tool" "$unreadable/tool"
as_user() {
  if [ "$(id -u)" != 0 ]; then "$@"; else
    setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  fi
}
if ! setpriv_error="$(as_user true 2>&1)"; then
  echo "SKIP unreadable directory: root, and setpriv cannot drop it: $setpriv_error"
else
  for mode in 000 300; do
    mkdir "$unreadable/store-$mode"
    "$writer" "$unreadable/store-$mode" >/dev/null
    chmod "$mode" "$unreadable/store-$mode"
    err="$(as_user "$unreadable/tool" --db "$unreadable/store-$mode" ids 2>&1 >/dev/null)"
    check "unreadable directory ($mode): exit 2" "2" "$?"
    check "unreadable directory ($mode): says so" \
      "journal_tool: PERMISSION_DENIED: cannot read the store directory $unreadable/store-$mode: Permission denied" \
      "$err"
  done
fi
check "--help: exit 0" "0" "$("$tool" --help >/dev/null; echo $?)"

# --- a damaged store ---------------------------------------------------------
"$writer" "$db" --damage || { echo "FAIL damaging the store"; exit 1; }
before="$(fingerprint)"

out="$("$tool" --db "$db" check)"
check "check of a damaged store: exit 1" "1" "$?"
contains "check names the damaged event" \
  "events: DATA_LOSS: persistence id 'p-1', sequence nr 3: corrupt event" "$out"
contains "check names the damaged snapshot" \
  "snapshots: DATA_LOSS: persistence id 'p-1', sequence nr 3: corrupt snapshot" "$out"
contains "check names the damaged metadata" \
  "metadata: DATA_LOSS: persistence id 'p-2': corrupt stream metadata" "$out"
contains "check counts the problems" \
  "checked 7 events, 1 snapshots, 1 stream metadata records, 3 write-ahead log records: 3 problems" "$out"

out="$("$tool" --db "$db" dump --id p-1 2>"$work/stderr")"
check "dump past a damaged event: exit 1" "1" "$?"
check "dump prints the readable events" "1 2 4 5" \
  "$(printf '%s\n' "$out" | sed 's/.*"seq":\([0-9]*\).*/\1/' | tr '\n' ' ' | sed 's/ $//')"
contains "dump names the damaged event on stderr" \
  "persistence id 'p-1', sequence nr 3" "$(cat "$work/stderr")"

out="$("$tool" --db "$db" ids 2>"$work/stderr")"
check "ids with damaged metadata: exit 1" "1" "$?"
contains "ids names the damaged metadata" "persistence id 'p-2'" \
  "$(cat "$work/stderr")"
contains "ids still lists the streams" '{"id":"p-1","highest_sequence_nr":5,"events":5}' "$out"

check "reading a damaged store never changes it" "$before" "$(fingerprint)"

# --- a damaged write-ahead log -----------------------------------------------
db="$work/wal-store"
"$writer" "$db" --wal || { echo "FAIL writing the store with a damaged log"; exit 1; }
before="$(fingerprint)"
log="$(cd "$db" && ls ./*.log)"
log="$db/${log#./}"

out="$("$tool" --db "$db" check)"
check "check of a damaged log: exit 1" "1" "$?"
contains "check names the log file and offset" \
  "wal: DATA_LOSS: write-ahead log $log at offset " "$out"
contains "check says readable records follow" \
  "(checksum mismatch; " "$out"
contains "check counts the log's problem" \
  "stream metadata records, 102 write-ahead log records: 1 problem" "$out"

out="$("$tool" --db "$db" dump --id w-1 2>"$work/stderr")"
check "dump with a damaged log: exit 1" "1" "$?"
contains "dump with a damaged log names it on stderr" \
  "wal: DATA_LOSS: write-ahead log $log" "$(cat "$work/stderr")"

out="$("$tool" --db "$db" salvage)"
check "salvage without --confirm: exit 1" "1" "$?"
contains "salvage without --confirm: names the damage" \
  "wal: DATA_LOSS: write-ahead log $log at offset " "$out"
contains "salvage without --confirm: changes nothing" "nothing was changed" "$out"
check "salvage without --confirm never changes the store" "$before" "$(fingerprint)"

out="$("$tool" --db "$db" salvage --confirm)"
check "salvage: exit 0" "0" "$?"
lost="$(printf '%s\n' "$out" | grep '^lost: {')"
check "salvage names exactly the lost event" \
  'lost: {"id":"w-1","from":50,"to":50}' "$lost"
contains "salvage keeps the damaged log" "kept the damaged logs as they were in $db/salvaged-" "$out"
contains "salvage says how many records it kept" "with its 102 readable records" "$out"
backup="$(cd "$db" && ls -d salvaged-*)"
check "the damaged log is kept as it was" \
  "$(printf '%s\n' "$before" | grep '\.log$' | cut -d' ' -f1)" \
  "$(md5sum "$db/$backup/$(basename "$log")" | cut -d' ' -f1)"

out="$("$tool" --db "$db" check)"
check "check after salvage: exit 0" "0" "$?"
check "dump after salvage: every other event" \
  "$(seq 1 100 | grep -vx 50 | tr '\n' ' ')" \
  "$("$tool" --db "$db" dump --id w-1 | sed 's/.*"seq":\([0-9]*\).*/\1/' | tr '\n' ' ')"
check "dump after salvage: the events after the damage" '2' \
  "$("$tool" --db "$db" dump --id w-2 | sed -n '2s/.*"seq":\([0-9]*\).*/\1/p')"
out="$("$tool" --db "$db" salvage --confirm)"
check "salvage of a sound store: exit 0" "0" "$?"
contains "salvage of a sound store: nothing to do" "nothing to salvage" "$out"

echo "$failures failed"
[ "$failures" -eq 0 ]
