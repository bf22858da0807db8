#!/usr/bin/env bash
# Lists the tracked C++ files that clang-format (the repository's
# .clang-format) would change; exits 1 if there are any. Fix them with
#   git ls-files '*.cc' '*.h' | xargs clang-format -i
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

unformatted=()
while IFS= read -r f; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done < <(git ls-files '*.cc' '*.h')

if [ ${#unformatted[@]} -gt 0 ]; then
  echo "not clang-formatted:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "all C++ files are clang-formatted"
