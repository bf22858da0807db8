#ifndef CAIRN_HOCON_INTERNAL_RESOLVER_H_
#define CAIRN_HOCON_INTERNAL_RESOLVER_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "hocon/internal/node.h"

namespace cairn::hocon::internal {

// Looks up an environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// Replaces every substitution and concatenation in `root` with its value.
// Substitutions look forward as well as back, fall back to `env` (the
// process environment by default), and `${?x}` with no value makes its
// field disappear. Errors name the substitution and where it was written:
// an undefined ${x}, a cycle, or a concatenation of incompatible values.
absl::StatusOr<NodePtr> Resolve(const NodePtr& root, const EnvLookup& env);

EnvLookup ProcessEnvironment();

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_RESOLVER_H_
