#!/usr/bin/env bash
# Runs the hocon2json binary as a user would: output, errors, exit codes.
set -uo pipefail

bin="$TEST_SRCDIR/$TEST_WORKSPACE/hocon/hocon2json"
work="$TEST_TMPDIR/hocon2json"
mkdir -p "$work/sub"
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

cat > "$work/main.conf" <<'CONF'
b = 2
a { timeout = 1.5s, size = 64 KiB, list = [1, 2] }
include "sub/inc.conf"
home = ${?CAIRN_HOCON2JSON_TEST}
CONF
echo 'from-include = ${b}' > "$work/sub/inc.conf"

out="$(CAIRN_HOCON2JSON_TEST=env "$bin" "$work/main.conf")"
expected='{
  "a": {
    "list": [
      1,
      2
    ],
    "size": "64 KiB",
    "timeout": "1.5s"
  },
  "b": 2,
  "from-include": 2,
  "home": "env"
}'
check "prints sorted, resolved JSON" "$expected" "$out"

check "--no-env" "false" \
  "$(CAIRN_HOCON2JSON_TEST=env "$bin" --no-env --path home "$work/main.conf" >/dev/null 2>&1 && echo true || echo false)"
check "--path" '[1,2]' "$("$bin" --path a.list "$work/main.conf" | tr -d ' \n')"
check "--duration" "1500000000" "$("$bin" --duration a.timeout "$work/main.conf")"
check "--bytes" "65536" "$("$bin" --bytes a.size "$work/main.conf")"
check "stdin" '{"x":1}' "$(echo 'x = 1' | "$bin" - | tr -d ' \n')"

printf 'a = 1\nb = [1,,2]\n' > "$work/bad.conf"
err="$("$bin" "$work/bad.conf" 2>&1 >/dev/null)"
code=$?
check "parse error exit code" "1" "$code"
check "parse error message" "$work/bad.conf:2:8: expected a value, found ','" "$err"

err="$("$bin" --duration a.list "$work/main.conf" 2>&1 >/dev/null)"
check "bad duration exit code" "1" "$?"
check "bad duration message" \
  "$work/main.conf:2:43: path 'a.list': expected a duration, found a list" "$err"

err="$("$bin" --bytes b.c "$work/main.conf" 2>&1 >/dev/null)"
check "missing path exit code" "1" "$?"

echo 'x = ${nope}' > "$work/unresolved.conf"
err="$("$bin" "$work/unresolved.conf" 2>&1 >/dev/null)"
check "resolve error" "$work/unresolved.conf:1:5: cannot resolve \${nope}: 'nope' is not set (nor is an environment variable of that name); use \${?nope} if it may be missing" "$err"

"$bin" > /dev/null 2>&1
check "usage exit code" "2" "$?"

exit $((failures > 0))
