#ifndef CAIRN_BASE_STRING_VIEW_H_
#define CAIRN_BASE_STRING_VIEW_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace cairn::base {

// Debian's Abseil is built with its own absl::string_view, a type distinct
// from std::string_view with no conversion between them. cairn's interfaces
// use std::string_view; these bridge the two at calls into Abseil, without
// copying.
inline absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view Sv(absl::string_view s) { return {s.data(), s.size()}; }

// `value`, or its absl::string_view if it is a std::string_view.
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

}  // namespace cairn::base

#endif  // CAIRN_BASE_STRING_VIEW_H_
