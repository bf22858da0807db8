#!/usr/bin/env bash
# Checks for constructs cairn's code must not use; exits 1 naming where.
#   - absl::Mutex and its locks and CondVar: Debian's Abseil is built
#     without ThreadSanitizer, so TSan does not see them and reports every
#     access they protect as a race (base/mutex.h says why); use
#     base::Mutex, base::ReaderWriterMutex and base::CondVar.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pattern='absl::(Mutex|MutexLock|ReaderMutexLock|WriterMutexLock|ReleasableMutexLock|CondVar)\b|absl/synchronization/mutex\.h'
found=$(git grep -nE "$pattern" -- '*.cc' '*.h' ':!third_party' ':!base/mutex.h')
if [ -n "$found" ]; then
  echo "absl::Mutex is invisible to TSan here (base/mutex.h): use base::Mutex," >&2
  echo "base::ReaderWriterMutex, base::CondVar:" >&2
  echo "$found" | sed 's/^/  /' >&2
  exit 1
fi
echo "lint: nothing found"
