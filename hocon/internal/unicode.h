#ifndef CAIRN_HOCON_INTERNAL_UNICODE_H_
#define CAIRN_HOCON_INTERNAL_UNICODE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace cairn::hocon::internal {

struct CodePoint {
  char32_t value = 0;
  std::size_t length = 0;  // bytes; 0 when the text is not valid UTF-8
};

// The code point starting at text[pos] (pos < text.size()).
CodePoint DecodeUtf8(std::string_view text, std::size_t pos);

void AppendUtf8(char32_t code_point, std::string* out);

// HOCON whitespace: Unicode space, line and paragraph separators
// (non-breaking ones too), the BOM, and the ASCII controls \t \n \v \f \r
// and 0x1C-0x1F.
bool IsWhitespace(char32_t code_point);

// `text` without leading and trailing HOCON whitespace.
std::string_view TrimWhitespace(std::string_view text);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_UNICODE_H_
