#!/usr/bin/env bash
# Fuzzes what a peer's bytes go through on arrival (remote/fuzz/
# frame_fuzzer.cc: a frame parsed, its messages decoded, its paths
# resolved) with libFuzzer, ASan and UBSan for a bounded time.
#
#   tools/fuzz_remote.sh [SECONDS]     (default 60)
#
# Built by Bazel with the clang ASan+UBSan configuration CI already
# builds (so only the remote package's files compile again, instrumented
# for libFuzzer's coverage). Exits non-zero on a finding; the input is
# left in $OUT (printed at the end).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-60}"
out="${TMPDIR:-/tmp}/cairn-fuzz-remote"
mkdir -p "$out/corpus"

flags=(--config=clang-asan-ubsan
  "--per_file_copt=remote/.*,sharding/internal/wire_serializer.*@-fsanitize=fuzzer-no-link")
echo "fuzz_remote: building //remote/fuzz:frame_fuzzer_bin" >&2
bazel build "${flags[@]}" //remote/fuzz:frame_fuzzer_bin
bin="$(bazel info "${flags[@]}" bazel-bin)/remote/fuzz/frame_fuzzer_bin"

echo "fuzz_remote: fuzzing for ${seconds}s" >&2
"$bin" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/" \
  "$out/corpus"
