#ifndef CAIRN_HOCON_INTERNAL_TOKENIZER_H_
#define CAIRN_HOCON_INTERNAL_TOKENIZER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hocon/internal/unicode.h"

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

// Splits HOCON text into tokens (comments dropped), one at a time, so
// that a parser holds only the few it looks at rather than the whole
// file's (they take several times the text's size). Rejects what no valid
// document holds: invalid UTF-8, reserved characters outside quotes, bad
// escapes, unterminated strings or substitutions. Errors are
// InvalidArgument "file:line:column: message". Not thread-safe; `text` and
// `file` must outlive it.
class Lexer {
 public:
  Lexer(std::string_view text, std::string_view file)
      : text_(text), file_(file) {}

  // The next token: kEnd at the end of the text (and after it).
  absl::StatusOr<Token> Next();

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool StartsComment() const;
  void Advance(std::size_t n);
  absl::Status Error(int line, int column, absl::string_view message) const;
  absl::Status Error(absl::string_view message) const;
  // The code point at the current position; length 0 for invalid UTF-8.
  CodePoint Here() const;
  absl::Status InvalidUtf8() const;
  absl::Status ReservedError(char c) const;
  Token Make(TokenKind kind, int line, int column, std::string text = {});
  absl::StatusOr<Token> LexWhitespace();
  absl::StatusOr<Token> LexQuoted();
  [[nodiscard]] absl::Status LexEscape(std::string* out);
  // Reads four hex digits after "\u".
  std::optional<char32_t> Hex4();
  absl::StatusOr<Token> LexTripleQuoted();
  absl::StatusOr<Token> LexNumber();
  absl::StatusOr<Token> LexUnquoted();
  absl::StatusOr<Token> LexSubstitution();

  std::string_view text_;
  std::string_view file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

// All the tokens of `text`, ending with kEnd; for short texts (path
// expressions).
absl::StatusOr<std::vector<Token>> Tokenize(std::string_view text,
                                            std::string_view file);

// How a token reads in an error message: `'}'`, `"quoted"`, `end of file`.
std::string DescribeToken(const Token& token);

// Whether the token can start or continue a value concatenation.
bool IsSimpleValue(TokenKind kind);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_TOKENIZER_H_
