#ifndef CAIRN_HOCON_INTERNAL_INCLUDER_H_
#define CAIRN_HOCON_INTERNAL_INCLUDER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

struct LoadOptions {
  // Directories searched, in order, for `include classpath("name")`, and
  // for `include "name"` when nothing is found next to the including
  // file: the stand-in for the JVM classpath of the reference
  // implementation.
  std::vector<std::string> resource_dirs;
};

// Reads and parses a file: `.properties` as Java properties, anything
// else as HOCON (JSON included). Its includes are resolved relative to
// its directory. A missing file is NotFound; errors name the file.
absl::StatusOr<ValuePtr> LoadFile(const std::string& path,
                                  const LoadOptions& options);

// Parses HOCON text whose relative includes are resolved against the
// working directory.
absl::StatusOr<ValuePtr> LoadText(std::string_view text, std::string origin,
                                  const LoadOptions& options);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_INCLUDER_H_
