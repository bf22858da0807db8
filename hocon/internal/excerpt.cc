#include "hocon/internal/excerpt.h"

#include "absl/strings/str_cat.h"

namespace cairn::hocon::internal {

std::string Excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::size_t cut = max_bytes;
  // Back up to the start of a UTF-8 sequence (at most 3 continuation
  // bytes), so the excerpt never splits a character.
  for (int i = 0; i < 3 && cut > 0 &&
                  (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80;
       ++i) {
    --cut;
  }
  return absl::StrCat(absl::string_view(text.data(), cut), "...(", text.size(),
                      " bytes)");
}

}  // namespace cairn::hocon::internal
