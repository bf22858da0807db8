#!/usr/bin/env bash
# Runs journal_tool as a user would, on a store written through the RocksDB
# plugins (testing/write_test_store), then on the same store damaged:
# output, exit codes, error lines, and that the store is never changed.
set -uo pipefail

tool="$TEST_SRCDIR/$TEST_WORKSPACE/persistence/journal_tool"
writer="$TEST_SRCDIR/$TEST_WORKSPACE/persistence/testing/write_test_store"
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
out="$("$tool" --db "$db" dump --id nobody)"
check "dump of an unknown id: exit 0" "0" "$?"
check "dump of an unknown id: nothing" "" "$out"

# --- check -------------------------------------------------------------------
out="$("$tool" --db "$db" check)"
check "check of a sound store: exit 0" "0" "$?"
check "check of a sound store: summary" \
  "checked 7 events, 1 snapshots, 1 stream metadata records: 0 problems" "$out"

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
usage_error "missing directory" --db "$work/nowhere" ids
mkdir -p "$work/empty"
usage_error "empty directory" --db "$work/empty" check
echo "not a database" > "$work/file"
usage_error "a file" --db "$work/file" check
check "the empty directory is left empty" "" "$(ls -A "$work/empty")"
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
  "checked 7 events, 1 snapshots, 1 stream metadata records: 3 problems" "$out"

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

echo "$failures failed"
[ "$failures" -eq 0 ]
