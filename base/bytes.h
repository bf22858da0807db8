#ifndef CAIRN_BASE_BYTES_H_
#define CAIRN_BASE_BYTES_H_

#include <string>
#include <string_view>

#include "absl/strings/string_view.h"

namespace cairn::base {

// A view of stored bytes that Abseil's string helpers and the standard
// library both take as they are: what a decoder receives
// (SerializationRegistry::Decoder).
//
// Why: Debian's Abseil is built with its own absl::string_view, a type
// distinct from std::string_view with no conversion between them, so
// absl::StrSplit or absl::SimpleAtoi on a std::string_view fails to
// compile (and a std::string_view parameter cannot take an
// absl::string_view). Bytes *is* an absl::string_view (every Abseil helper
// takes it, StrSplit included) and converts implicitly to a
// std::string_view, so a decoder may declare its parameter as Bytes,
// std::string_view or absl::string_view. Where Abseil's string_view is the
// standard one, Bytes is simply that type with a name.
//
// Like any view, it does not own the bytes: they live as long as the call
// that passes it; copy what a decoded value keeps (std::string(bytes)).
class Bytes : public absl::string_view {
 public:
  constexpr Bytes() = default;
  constexpr Bytes(absl::string_view bytes) : absl::string_view(bytes) {}
#ifndef ABSL_USES_STD_STRING_VIEW
  constexpr Bytes(std::string_view bytes)
      : absl::string_view(bytes.data(), bytes.size()) {}
  constexpr operator std::string_view() const {
    return std::string_view(data(), size());
  }
#endif
  Bytes(const std::string& bytes) : absl::string_view(bytes) {}
  constexpr Bytes(const char* bytes) : absl::string_view(bytes) {}
};

}  // namespace cairn::base

#endif  // CAIRN_BASE_BYTES_H_
