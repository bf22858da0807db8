#!/usr/bin/env bash
# Builds examples/consumer, a workspace of its own that depends on cairn as
# an external repository (@cairn, docs/USING_CAIRN.md), and runs its
# program twice over one data directory: the second run must see the
# first run's event (count 2). CI runs it (.ci/run); it fails if a label
# or a path in cairn's BUILD files breaks when cairn is not the main
# repository.
#
# The consumer is a second Bazel workspace, so a second Bazel server with
# its own output base: it uses the main tree's disk cache (the
# --disk_cache line of its user.bazelrc, which CI writes) and is shut down
# at the end so that it holds no memory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"
consumer="$root/examples/consumer"

# The main tree's disk cache, if it has one, for the consumer too.
if [ -f user.bazelrc ] && grep -q -- '--disk_cache=' user.bazelrc; then
  grep -- '--disk_cache=' user.bazelrc > "$consumer/user.bazelrc"
fi

data="$(mktemp -d "${TMPDIR:-/tmp}/cairn-consumer.XXXXXX")"
cd "$consumer"
trap 'bazel shutdown; rm -rf "$data"' EXIT

bazel build //...
counter="$(bazel info bazel-bin)/counter"

first="$("$counter" "$data")"
second="$("$counter" "$data")"
echo "first run: $first; second run: $second"
if [ "$first" != "count: 1" ] || [ "$second" != "count: 2" ]; then
  echo "FAILED: expected 'count: 1', then 'count: 2' from the same data directory" >&2
  exit 1
fi
echo "the consumer workspace builds and its counter recovers from disk"
