#ifndef CAIRN_HOCON_INTERNAL_RESOLVER_H_
#define CAIRN_HOCON_INTERNAL_RESOLVER_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

// Looks up an environment variable; nullopt when it is not set.
using EnvLookup =
    std::function<std::optional<std::string>(std::string_view name)>;

// Replaces every substitution in `root` (an object), joins every
// concatenation and finishes every merge stack.
//
// A substitution names a path from the root and sees its final value
// ("looks forward"), except that a field referring to itself
// (`a = ${a} [x]`, `a += x`) sees the value it overrides. An included
// file's substitutions try the path below the include point first. When
// the path is not set, a one-key path falls back to `env` (if given); an
// optional `${?x}` with nothing behind it removes its field or list
// element.
//
// Errors are InvalidArgument naming the substitution and where it was
// written: undefined, part of a cycle, or a concatenation of
// incompatible values.
absl::StatusOr<ValuePtr> Resolve(const ValuePtr& root, const EnvLookup& env);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_RESOLVER_H_
