#ifndef CAIRN_HOCON_INTERNAL_TOKENIZER_H_
#define CAIRN_HOCON_INTERNAL_TOKENIZER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cairn::hocon::internal {

enum class TokenKind {
  kEnd,
  kNewline,     // '\n' only; other line breaks are whitespace
  kWhitespace,  // a run of non-newline whitespace; `text` holds it
  kComma,
  kColon,
  kEquals,
  kPlusEquals,
  kOpenBrace,
  kCloseBrace,
  kOpenBracket,
  kCloseBracket,
  kQuotedString,  // `text` decoded (escapes applied; """ strings raw)
  kUnquotedText,
  kNumber,  // `text` as written
  kTrue,
  kFalse,
  kNull,
  kSubstitution,  // `path`, `optional`
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  int line = 0;
  int column = 0;
  std::string text;
  bool optional = false;
  std::vector<std::string> path;
};

// Splits HOCON text into tokens (comments dropped), ending with kEnd.
// Rejects what no valid document holds: invalid UTF-8, reserved characters
// outside quotes, bad escapes, unterminated strings or substitutions.
// Errors are InvalidArgument "file:line:column: message".
absl::StatusOr<std::vector<Token>> Tokenize(std::string_view text,
                                            std::string_view file);

// How a token reads in an error message: `'}'`, `"quoted"`, `end of file`.
std::string DescribeToken(const Token& token);

// Whether the token can start or continue a value concatenation.
bool IsSimpleValue(TokenKind kind);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_TOKENIZER_H_
