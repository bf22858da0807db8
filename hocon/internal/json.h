#ifndef CAIRN_HOCON_INTERNAL_JSON_H_
#define CAIRN_HOCON_INTERNAL_JSON_H_

#include <string>

#include "hocon/internal/node.h"

namespace cairn::hocon::internal {

// Renders a resolved value as JSON: keys sorted, two-space indentation,
// numbers as written. Unresolved parts render as their HOCON source form.
std::string ToJson(const Node& node);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_JSON_H_
