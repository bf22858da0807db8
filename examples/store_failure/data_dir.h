#ifndef CAIRN_EXAMPLES_STORE_FAILURE_DATA_DIR_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_DATA_DIR_H_

// The program's arguments, and the directory its store lives in.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cairn::examples::store_failure {

inline constexpr char kUsage[] = "usage: store_failure [--data DIR]\n";

// Parses `store_failure [--data DIR]` (or `--data=DIR`): the --data value,
// empty if none was given. InvalidArgument for anything else.
[[nodiscard]] absl::StatusOr<std::string> ParseArgs(int argc,
                                                    const char* const* argv);

struct DataDir {
  std::string path;
  bool temporary = false;  // made for this run; removed at the end
};

// The store's directory: `flag`, created with its parents if missing (a
// relative path is taken from BUILD_WORKING_DIRECTORY, where `bazel run`
// was started, if set); or, if `flag` is empty, a new directory under
// $TMPDIR (/tmp without it). InvalidArgument if it cannot be created.
[[nodiscard]] absl::StatusOr<DataDir> MakeDataDir(const std::string& flag);

// Removes `dir` and what it holds if it is temporary; otherwise nothing.
void RemoveIfTemporary(const DataDir& dir);

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_DATA_DIR_H_
