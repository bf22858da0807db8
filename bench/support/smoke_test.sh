#!/usr/bin/env bash
# The smoke test of every benchmark (bench/support/smoke_test.bzl makes
# them): runs it with --quick, and fails if it exits non-zero or if its
# output lacks a row. No figure is checked: they depend on the machine.
#
#   smoke_test.sh BENCHMARK [--postgres FLAG] [--row REGEX]... [--count N REGEX]...
#
# --row REGEX      some line matches the extended regex
# --count N REGEX  exactly N lines match it
# --postgres FLAG  runs on the PostgreSQL tests' server (docs/POSTGRESQL.md),
#                  passing FLAG (--url, say) "$CAIRN_TEST_POSTGRES_URL";
#                  without one the test skips, saying so (the benchmark's
#                  own server cannot start inside Bazel's sandbox as
#                  root), and with
#                  CAIRN_TEST_POSTGRES_REQUIRED=1 it fails instead.
set -uo pipefail

benchmark="$1"
shift
name="$(basename "$benchmark")"
args=(--quick)
rows=()
counts=()
postgres=0
url_flag=""
while [ $# -gt 0 ]; do
  case "$1" in
    --postgres) postgres=1; url_flag="$2"; shift 2 ;;
    --row) rows+=("$2"); shift 2 ;;
    --count) counts+=("$2" "$3"); shift 3 ;;
    *) echo "smoke_test.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

if [ "$postgres" -eq 1 ]; then
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
  args+=("$url_flag" "$url")
fi

out="$TEST_TMPDIR/$name.out"
"$benchmark" "${args[@]}" >"$out"
status=$?
cat "$out"
if [ "$status" -ne 0 ]; then
  echo "FAIL: $name ${args[*]} exited with $status"
  exit 1
fi

failures=0
for row in "${rows[@]}"; do
  if ! grep -Eq -- "$row" "$out"; then
    echo "FAIL: no row matching '$row'"
    failures=$((failures + 1))
  fi
done
for ((i = 0; i < ${#counts[@]}; i += 2)); do
  want="${counts[i]}"
  pattern="${counts[i + 1]}"
  got=$(grep -cE -- "$pattern" "$out")
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $got lines matching '$pattern' instead of $want"
    failures=$((failures + 1))
  fi
done

[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
