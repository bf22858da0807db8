#ifndef CAIRN_EXAMPLES_BANK_DATA_DIR_H_
#define CAIRN_EXAMPLES_BANK_DATA_DIR_H_

// The data directory of the bank: where it is, and whether it can be used.
// Problems with the directory itself are InvalidArgument (the CLI's exit
// code 2); a store busy in another process is FailedPrecondition.

#include <string>

#include "absl/status/status.h"

namespace cairn::examples::bank {

struct DataDir {
  std::string path;
  bool is_default = false;  // no --data was given
};

// `flag` is the --data value, empty if none was given: then
// $TMPDIR/cairn-bank (/tmp/cairn-bank without TMPDIR). A relative path is
// taken from the directory `bazel run` was started in
// (BUILD_WORKING_DIRECTORY) if set, as the user expects, rather than from
// the runfiles tree Bazel runs the binary in.
DataDir ResolveDataDir(const std::string& flag);

// Where temporary files go: $TMPDIR, /tmp without it.
std::string TempRoot();

// For commands that write: creates `dir` and its parents if missing;
// InvalidArgument if it cannot be created, is not a writable directory, or
// holds a store with a file this process cannot write (a read-only store).
[[nodiscard]] absl::Status PrepareForWriting(const std::string& dir);

// For commands that only read: InvalidArgument unless `dir` is a readable
// directory holding a store (a RocksDB database). Creates nothing.
[[nodiscard]] absl::Status CheckReadableStore(const std::string& dir);

// FailedPrecondition if another process has the store in `dir` open: it
// holds RocksDB's lock, a POSIX record lock on `dir`/LOCK. Tested without
// taking the lock, so nothing changes.
[[nodiscard]] absl::Status CheckNotInUse(const std::string& dir);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_DATA_DIR_H_
