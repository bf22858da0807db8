#!/usr/bin/env bash
# Fails when README.md or a Markdown file under docs/ names a repository
# path that does not exist, printing FILE:LINE: PATH does not exist for
# each (tools/check.sh and CI run it; it takes well under a second). It
# reads the targets of [links] and the tokens of `code spans`, outside
# fenced code blocks:
# - a link target: relative to the Markdown file, as a renderer resolves
#   it (the repository root is accepted too); ../ is checked while it stays
#   inside the repository;
# - a Bazel label (//pkg:target, //pkg/...): the package's directory;
# - a token that starts with a top-level entry (actor/, .ci/run,
#   persistence/storage/journal.h): from the root or the file's directory,
#   or a target its package's BUILD.bazel names
#   (examples/bank/multi_process_test); a trailing :LINE is ignored;
# - a token with a directory and a file name that starts elsewhere
#   (internal/envelope.h, where the text says whose): some repository path
#   must end with it, unless it is a system header (absl/status/status.h
#   under /usr/include).
# Not checked: bare names, words with a slash (read/write), absolute and
# home paths, ../ in code spans, URLs, bazel-* output, and placeholders (*,
# <name>, {a,b}, $VAR, ...): write a path outside the repository as one of
# those. Repository paths are the files git tracks or would (not ignored).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

mapfile -t docs < <(git ls-files --cached --others --exclude-standard -- \
  README.md 'docs/*.md' | sort -u)
[ ${#docs[@]} -gt 0 ] || exit 0

git ls-files --cached --others --exclude-standard |
  awk -v usr_include=/usr/include '
  function dirname(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "" }
  function join(dir, p) { return dir == "" ? p : dir "/" p }
  # "a/./b", "a/../b": as the file system would resolve them.
  function normal(p,   n, parts, out, k, i) {
    n = split(p, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
      if (parts[i] == "" || parts[i] == ".") continue
      if (parts[i] == "..") { if (k == 0) return "\001"; k--; continue }
      out[++k] = parts[i]
    }
    p = ""
    for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
    return p
  }
  function exists(p) { p = normal(p); return p == "" || (p in known) }
  # "examples/bank/multi_process_test": a target its package declares.
  function is_target(p,   build, line, found) {
    p = normal(p)
    build = join(dirname(p), "BUILD.bazel")
    if (!(build in known)) return 0
    sub(/.*\//, "", p)
    found = 0
    while ((getline line < build) > 0)
      if (index(line, "name = \"" p "\"")) found = 1
    close(build)
    return found
  }
  function report(token) {
    printf "%s:%d: %s does not exist\n", FILENAME, FNR, token
    missing++
  }
  function skipped(t) {
    return t == "" || t ~ /:\/\// || t ~ /^(\/[^\/]|~|\$|\.\.\/|-)/ ||
           t ~ /[*<>{}\[\]$?=@"'"'"',;|\\]/ || t ~ /\.\.\./ ||
           t ~ /(^|\/)bazel-/
  }
  function check_label(t,   p) {
    p = t; sub(/^\/\//, "", p); sub(/:.*/, "", p); sub(/\/\.\.\.$/, "", p)
    if (p ~ /^[A-Za-z0-9_.+\/-]+$/ && !exists(p)) report(t)
  }
  function check_link(t,   p, s) {
    p = t; sub(/#.*/, "", p); sub(/^<|>$/, "", p)
    if (p == "" || p ~ /^(mailto|#)/) return
    if (p ~ /^\/\//) { check_label(p); return }
    s = p; while (s ~ /^\.\.\//) s = substr(s, 4)
    if (skipped(s)) return
    if (normal(join(here, p)) == "\001") return  # outside the repository
    if (!exists(join(here, p)) && !exists(p)) report(t)
  }
  function check_code(t,   p, first, last) {
    p = t
    while (p ~ /[.:)]$/ && p !~ /\/$/) p = substr(p, 1, length(p) - 1)
    sub(/^\(/, "", p)
    if (p ~ /^\/\//) { if (!skipped(substr(p, 3))) check_label(p); return }
    sub(/:[0-9]+$/, "", p)  # file.cc:42
    if (skipped(p) || p !~ /^[A-Za-z0-9_.+\/-]+$/) return
    first = p; sub(/\/.*/, "", first)
    if (first == "." ) { if (!exists(join(here, p))) report(t); return }
    if (first in top) {
      if (p !~ /\// && p !~ /\/$/) return  # a bare top-level name: a word
      if (!exists(p) && !exists(join(here, p)) && !is_target(p)) report(t)
      return
    }
    last = p; sub(/.*\//, "", last)
    if (p !~ /[^\/]\/[^\/]/ || last !~ /\./) return
    if ((p in suffix) || exists(join(here, p))) return
    if (system("test -e \"" usr_include "/" p "\"") == 0) return
    report(t)
  }
  FNR == NR {  # the repository paths: every file and directory, and the
               # suffixes of each at a slash
    p = $0; first = p; sub(/\/.*/, "", first); top[first] = 1
    while (p != "") {
      known[p] = 1
      s = p
      while (s ~ /\//) { suffix[s] = 1; sub(/^[^\/]*\//, "", s) }
      p = dirname(p)
    }
    next
  }
  FNR == 1 { here = dirname(FILENAME); fenced = 0; in_span = 0 }
  /^[ \t]*(```|~~~)/ { fenced = !fenced; in_span = 0; next }
  fenced { next }
  /^[ \t]*$/ { in_span = 0; next }  # a span ends with its paragraph
  {
    # Code spans: every other piece between backticks, and a span may go on
    # to the next line of its paragraph; links are in the pieces between.
    n = split($0, piece, "`")
    prose = ""
    for (i = 1; i <= n; i++)
      if ((i - 1 + in_span) % 2 == 0) prose = prose " " piece[i]
    # Link targets: ](target) and ](target "title").
    rest = prose
    while (match(rest, /\]\([^)]*\)/)) {
      target = substr(rest, RSTART + 2, RLENGTH - 3)
      sub(/[ \t].*/, "", target)
      check_link(target)
      rest = substr(rest, RSTART + RLENGTH)
    }
    for (i = 1; i <= n; i++) {
      if ((i - 1 + in_span) % 2 == 0) continue
      m = split(piece[i], token, /[ \t]+/)
      for (j = 1; j <= m; j++) check_code(token[j])
    }
    in_span = (in_span + n - 1) % 2
  }
  END { exit missing > 0 }
' - "${docs[@]}"
