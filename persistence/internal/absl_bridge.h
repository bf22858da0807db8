#ifndef CAIRN_PERSISTENCE_INTERNAL_ABSL_BRIDGE_H_
#define CAIRN_PERSISTENCE_INTERNAL_ABSL_BRIDGE_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace cairn::persistence::internal {

// Debian's Abseil is built with its own absl::string_view, distinct from
// std::string_view and not convertible to or from it. Our interfaces use
// std::string_view; these bridge at the calls into Abseil.
inline absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }

template <typename T>
decltype(auto) ForAbsl(const T& value) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return Av(value);
  } else {
    return (value);
  }
}

// absl::StrCat that also takes std::string_view.
template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(ForAbsl(args)...);
}

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_ABSL_BRIDGE_H_
