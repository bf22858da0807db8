#ifndef CAIRN_HOCON_INTERNAL_STRING_VIEW_H_
#define CAIRN_HOCON_INTERNAL_STRING_VIEW_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace cairn::hocon::internal {

// Debian's Abseil is built with its own absl::string_view, a type distinct
// from std::string_view with no conversion between them; these bridge the
// two without copying.
inline absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view Sv(absl::string_view s) { return {s.data(), s.size()}; }

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_STRING_VIEW_H_
