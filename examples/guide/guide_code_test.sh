#!/usr/bin/env bash
# Checks that the code docs/GUIDE.md shows is the code that is compiled and
# the output it shows is what the tests assert: each fenced block preceded
# by a line
#   <!-- compiled: PATH -->   (a C++ excerpt of a file that is built)
#   <!-- checked: PATH -->    (an output a step's test compares verbatim)
# must appear in PATH verbatim, as consecutive lines; and every ```cpp
# block must have such a line, so none escapes the check. Fails naming the
# guide's line of each block that does not. Usage: guide_code_test.sh GUIDE
# (the PATHs are relative to the working directory: the runfiles root).
set -euo pipefail
guide="$1"

awk '
  # Whether block[1..count] are consecutive lines of `path`.
  function found_in(path,   n, line, lines, i, j, same) {
    n = 0
    while ((getline line < path) > 0) lines[++n] = line
    close(path)
    if (n == 0) {
      printf "%s:%d: %s is missing or empty\n", FILENAME, start, path
      return -1
    }
    for (i = 1; i + count - 1 <= n; i++) {
      same = 1
      for (j = 1; j <= count; j++)
        if (lines[i + j - 1] != block[j]) { same = 0; break }
      if (same) return 1
    }
    return 0
  }
  /^<!-- (compiled|checked): [^ ]+ -->$/ { marker = $3; marker_line = FNR; next }
  in_block && /^```/ {
    in_block = 0
    if (path == "") next
    result = found_in(path)
    if (result == 1) checked++
    if (result == 0)
      printf "%s:%d: this block is not in %s as it stands there\n", FILENAME,
             start, path
    if (result != 1) bad++
    next
  }
  in_block { block[++count] = $0; next }
  /^```/ {
    in_block = 1; count = 0; start = FNR
    path = (marker_line == FNR - 1) ? marker : ""
    if (path == "" && $0 ~ /^```cpp/) {
      printf "%s:%d: a C++ block without <!-- compiled: PATH --> above it\n",
             FILENAME, FNR
      bad++
    }
    next
  }
  END {
    if (in_block) { printf "%s:%d: a block that never ends\n", FILENAME, start; bad++ }
    if (checked == 0 && bad == 0) { printf "%s: no block to check\n", FILENAME; bad++ }
    if (bad > 0) exit 1
    printf "%d blocks of %s are in the files they name\n", checked, FILENAME
  }
' "$guide"
