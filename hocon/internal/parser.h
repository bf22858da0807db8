#ifndef CAIRN_HOCON_INTERNAL_PARSER_H_
#define CAIRN_HOCON_INTERNAL_PARSER_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hocon/internal/node.h"

namespace cairn::hocon::internal {

// Parses HOCON text into an unresolved tree whose root is an object.
// `file` names the text in errors and anchors relative includes.
// Errors are InvalidArgument with "file:line:column: message".
absl::StatusOr<NodePtr> Parse(std::string_view text, const std::string& file);

// Parses a file (errors name it; a missing file is NotFound).
absl::StatusOr<NodePtr> ParseFile(const std::string& path);

// Splits a path expression (`a.b."c.d"`) into its keys.
absl::StatusOr<std::vector<std::string>> SplitPath(std::string_view path);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_PARSER_H_
