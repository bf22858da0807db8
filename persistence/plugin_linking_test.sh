#!/usr/bin/env bash
# The build graph, from genquery: a program linking only the in-memory
# plugin's registration (//persistence:inmem_only_test) depends on neither
# RocksDB nor libpq, and neither does //sharding or the persistent actor
# library; //persistence:default_plugins depends on both (so the check can
# fail).
set -uo pipefail
status=0
has() {  # has FILE LABEL
  grep -qx "$2" "$1"
}
for pair in "inmem_only_test_deps" "persistent_actor_deps" "sharding_deps"; do
  file="persistence/${pair}"
  [ -f "$file" ] || file="$TEST_SRCDIR/$TEST_WORKSPACE/persistence/${pair}"
  for lib in //third_party:rocksdb //third_party:libpq; do
    if has "$file" "$lib"; then
      echo "FAIL: ${pair%_deps} depends on $lib"
      status=1
    fi
  done
done
file="persistence/default_plugins_deps"
[ -f "$file" ] || file="$TEST_SRCDIR/$TEST_WORKSPACE/$file"
for lib in //third_party:rocksdb //third_party:libpq; do
  if ! has "$file" "$lib"; then
    echo "FAIL: //persistence:default_plugins does not depend on $lib (the query is wrong)"
    status=1
  fi
done
[ $status -eq 0 ] && echo "PASS: only what links a plugin's registration links its library"
exit $status
