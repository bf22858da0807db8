#ifndef CAIRN_HOCON_INTERNAL_PROPERTIES_H_
#define CAIRN_HOCON_INTERNAL_PROPERTIES_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hocon/internal/value.h"

namespace cairn::hocon::internal {

// Parses a Java .properties file (`key=value`, `key: value` or
// `key value`; `#` and `!` comments; backslash line continuations and
// escapes) into an object. Keys split on '.' into paths; every value is a
// string. When a key is both a value and a prefix of other keys
// (`a=1`, `a.b=2`) the object wins, as in the reference implementation.
absl::StatusOr<ValuePtr> ParseProperties(std::string_view text,
                                         SourceName file);

// Environment variables as an object, by the same rule as the reference
// implementation (which reads them as properties): a name splits on '.'
// into a path (`a.b=x` is { a { b = x } }), every value is a string, an
// object wins over a value at its path. A name nested deeper than
// kMaxNestingDepth is left out.
ValuePtr EnvironmentObject(const std::map<std::string, std::string>& vars);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_PROPERTIES_H_
