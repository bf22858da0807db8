#!/usr/bin/env bash
# Fuzzes the HOCON parser and resolver (hocon/fuzz/parse_fuzzer.cc) with
# libFuzzer, ASan and UBSan for a bounded time. Built with clang outside
# Bazel, so that `bazel build //...` stays gcc-only.
#
#   tools/fuzz_hocon.sh [SECONDS]     (default 60)
#
# Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev; both are in
# tools/setup.sh). Seeds come from the repository's .conf files and, when
# present, the shared conformance data ($CAIRN_CONFORMANCE_DIR, else
# ../shared/conformance beside the workspace, as the tests find it).
# Exits non-zero on a finding; the crashing input is left in $OUT (printed
# at the end).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-60}"
out="${TMPDIR:-/tmp}/cairn-fuzz-hocon"
mkdir -p "$out/corpus" "$out/seeds"

cxx="$(command -v clang++ || command -v clang++-14 || true)"
if [ -z "$cxx" ]; then
  echo "fuzz_hocon: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi

srcs=(hocon/fuzz/parse_fuzzer.cc hocon/units.cc)
for f in hocon/internal/*.cc; do
  case "$f" in *_test.cc) ;; *) srcs+=("$f") ;; esac
done
# The Abseil libraries, as //third_party:absl links them.
mapfile -t absl < <(grep -o '"-labsl_[a-z0-9_]*"' third_party/BUILD.bazel | tr -d '"')

echo "fuzz_hocon: building $out/parse_fuzzer with $cxx" >&2
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I. "${srcs[@]}" "${absl[@]}" -o "$out/parse_fuzzer"

find . -path ./bazel-\* -prune -o -name '*.conf' -print0 |
  xargs -0 -r cp -t "$out/seeds" 2>/dev/null || true
shared="${CAIRN_CONFORMANCE_DIR:-../shared/conformance}/hocon"
if [ -d "$shared" ]; then
  n=0
  while IFS= read -r -d '' f; do
    n=$((n + 1))
    cp "$f" "$out/seeds/shared-$n-$(basename "$f")"
  done < <(find "$shared" -type f \( -name '*.conf' -o -name '*.json' -o -name '*.properties' \) -print0)
fi

echo "fuzz_hocon: fuzzing for ${seconds}s" >&2
"$out/parse_fuzzer" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/" \
  "$out/corpus" "$out/seeds"
