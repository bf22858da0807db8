#ifndef CAIRN_HOCON_INTERNAL_PATH_EXPRESSION_H_
#define CAIRN_HOCON_INTERNAL_PATH_EXPRESSION_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cairn::hocon::internal {

// Parses a path expression as the Config getters take it: `a.b`,
// `a."b.c"`, `a.""`, with the syntax of keys in HOCON text (no
// substitutions). InvalidArgument naming the path when it is not one.
absl::StatusOr<std::vector<std::string>> ParsePathExpression(
    std::string_view path);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_PATH_EXPRESSION_H_
