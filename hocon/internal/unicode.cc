#include "hocon/internal/unicode.h"

namespace cairn::hocon::internal {

CodePoint DecodeUtf8(std::string_view text, std::size_t pos) {
  auto byte = [&](std::size_t i) {
    return static_cast<unsigned char>(text[pos + i]);
  };
  unsigned char b0 = byte(0);
  if (b0 < 0x80) return {b0, 1};
  std::size_t length;
  char32_t cp;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    cp = b0 & 0x07;
  } else {
    return {};
  }
  if (pos + length > text.size()) return {};
  for (std::size_t i = 1; i < length; ++i) {
    unsigned char b = byte(i);
    if ((b & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (b & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  if ((length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000) ||
      (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    return {};
  }
  return {cp, length};
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsWhitespace(char32_t cp) {
  switch (cp) {
    case ' ':
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case 0x1C:
    case 0x1D:
    case 0x1E:
    case 0x1F:
    case 0x00A0:  // no-break space
    case 0x1680:  // ogham space mark
    case 0x2028:  // line separator
    case 0x2029:  // paragraph separator
    case 0x202F:  // narrow no-break space
    case 0x205F:  // medium mathematical space
    case 0x3000:  // ideographic space
    case 0xFEFF:  // BOM
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;  // en quad .. hair space
  }
}

std::string_view TrimWhitespace(std::string_view text) {
  std::size_t begin = 0;
  while (begin < text.size()) {
    CodePoint c = DecodeUtf8(text, begin);
    if (c.length == 0 || !IsWhitespace(c.value)) break;
    begin += c.length;
  }
  std::size_t end = text.size();
  while (end > begin) {
    // Step back to the start of the last code point.
    std::size_t start = end - 1;
    while (start > begin &&
           (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
      --start;
    }
    CodePoint c = DecodeUtf8(text, start);
    if (c.length == 0 || !IsWhitespace(c.value)) break;
    end = start;
  }
  return text.substr(begin, end - begin);
}

}  // namespace cairn::hocon::internal
