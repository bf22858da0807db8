#ifndef CAIRN_HOCON_INTERNAL_STRING_VIEW_H_
#define CAIRN_HOCON_INTERNAL_STRING_VIEW_H_

#include "base/string_view.h"

namespace cairn::hocon::internal {

// The bridge between std::string_view and Debian's distinct
// absl::string_view, under the names the parser uses; it lives once, in
// //base (shared with //persistence).
using ::cairn::base::Av;
using ::cairn::base::Sv;

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_STRING_VIEW_H_
