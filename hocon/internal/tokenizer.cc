#include "hocon/internal/tokenizer.h"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/excerpt.h"
#include "hocon/internal/json_string.h"
#include "hocon/internal/number.h"
#include "hocon/internal/path.h"
#include "hocon/internal/string_view.h"
#include "hocon/internal/unicode.h"

namespace cairn::hocon::internal {
namespace {

// Characters that end unquoted text. Some have meaning in HOCON; the
// others are reserved for future use, so text holding them must be quoted.
constexpr std::string_view kNotInUnquotedText = "$\"{}[]:=,+#`^?!@*&\\";
constexpr std::string_view kReserved = "`^?!@*&\\";
constexpr std::string_view kNumberChars = "0123456789eE+-.";

// kNotInUnquotedText and ASCII whitespace, as a table: the unquoted-text
// loop is the tokenizer's hottest.
constexpr std::array<bool, 256> MakeEndsUnquotedText() {
  std::array<bool, 256> table{};
  for (char c : kNotInUnquotedText) table[static_cast<unsigned char>(c)] = true;
  for (unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'}) table[c] = true;
  for (unsigned char c = 0x1C; c <= 0x1F; ++c) table[c] = true;
  return table;
}
constexpr std::array<bool, 256> kEndsUnquotedText = MakeEndsUnquotedText();

}  // namespace

bool Lexer::StartsComment() const {
  return Peek() == '#' || (Peek() == '/' && Peek(1) == '/');
}

// Moves past `n` bytes, counting lines and (code point) columns.
void Lexer::Advance(std::size_t n) {
  for (std::size_t i = 0; i < n; ++i, ++pos_) {
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column_;
    }
  }
}

absl::Status Lexer::Error(int line, int column,
                          absl::string_view message) const {
  return absl::InvalidArgumentError(
      absl::StrCat(Av(file_), ":", line, ":", column, ": ", message));
}

absl::Status Lexer::Error(absl::string_view message) const {
  return Error(line_, column_, message);
}

CodePoint Lexer::Here() const {
  unsigned char c = static_cast<unsigned char>(text_[pos_]);
  if (c < 0x80) return {c, 1};
  return DecodeUtf8(text_, pos_);
}

absl::Status Lexer::InvalidUtf8() const {
  return Error("invalid UTF-8 (HOCON files are UTF-8)");
}

Token Lexer::Make(TokenKind kind, int line, int column, std::string text) {
  Token t;
  t.kind = kind;
  t.line = line;
  t.column = column;
  t.text = std::move(text);
  return t;
}

absl::StatusOr<Token> Lexer::Next() {
  while (true) {
    int line = line_;
    int column = column_;
    if (AtEnd()) return Make(TokenKind::kEnd, line, column);
    char c = Peek();
    if (c == '\n') {
      Advance(1);
      return Make(TokenKind::kNewline, line, column);
    }
    if (StartsComment()) {
      while (!AtEnd() && Peek() != '\n') Advance(1);
      continue;
    }
    CodePoint cp = Here();
    if (cp.length == 0) return InvalidUtf8();
    if (IsWhitespace(cp.value)) return LexWhitespace();
    switch (c) {
      case '"':
        if (Peek(1) == '"' && Peek(2) == '"') return LexTripleQuoted();
        return LexQuoted();
      case '$':
        return LexSubstitution();
      case '{':
        Advance(1);
        return Make(TokenKind::kOpenBrace, line, column);
      case '}':
        Advance(1);
        return Make(TokenKind::kCloseBrace, line, column);
      case '[':
        Advance(1);
        return Make(TokenKind::kOpenBracket, line, column);
      case ']':
        Advance(1);
        return Make(TokenKind::kCloseBracket, line, column);
      case ',':
        Advance(1);
        return Make(TokenKind::kComma, line, column);
      case ':':
        Advance(1);
        return Make(TokenKind::kColon, line, column);
      case '=':
        Advance(1);
        return Make(TokenKind::kEquals, line, column);
      case '+':
        if (Peek(1) == '=') {
          Advance(2);
          return Make(TokenKind::kPlusEquals, line, column);
        }
        return ReservedError(c);
      default:
        break;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return LexNumber();
    if (kReserved.find(c) != std::string_view::npos) return ReservedError(c);
    return LexUnquoted();
  }
}

absl::Status Lexer::ReservedError(char c) const {
  return Error(absl::StrCat("reserved character '", std::string(1, c),
                            "' is not allowed outside quotes (quote the "
                            "string if you meant it as text)"));
}

absl::StatusOr<Token> Lexer::LexWhitespace() {
  int line = line_;
  int column = column_;
  std::size_t start = pos_;
  while (!AtEnd() && Peek() != '\n') {
    CodePoint cp = DecodeUtf8(text_, pos_);
    if (cp.length == 0 || !IsWhitespace(cp.value)) break;
    Advance(cp.length);
  }
  return Make(TokenKind::kWhitespace, line, column,
              std::string(text_.substr(start, pos_ - start)));
}

absl::StatusOr<Token> Lexer::LexQuoted() {
  int line = line_;
  int column = column_;
  Advance(1);
  std::string value;
  while (true) {
    if (AtEnd()) return Error(line, column, "unterminated quoted string");
    char c = Peek();
    if (c == '"') {
      Advance(1);
      return Make(TokenKind::kQuotedString, line, column, std::move(value));
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      return Error(
          "control characters (such as a new line) are not allowed in a "
          "quoted string; escape them (\\n) or use a \"\"\" string");
    }
    if (c == '\\') {
      absl::Status s = LexEscape(&value);
      if (!s.ok()) return s;
      continue;
    }
    CodePoint cp = Here();
    if (cp.length == 0) return InvalidUtf8();
    value.append(text_.substr(pos_, cp.length));
    Advance(cp.length);
  }
}

std::optional<char32_t> Lexer::Hex4() {
  if (pos_ + 4 > text_.size()) return std::nullopt;
  char32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char h = text_[pos_ + i];
    v <<= 4;
    if (h >= '0' && h <= '9') {
      v |= h - '0';
    } else if (h >= 'a' && h <= 'f') {
      v |= h - 'a' + 10;
    } else if (h >= 'A' && h <= 'F') {
      v |= h - 'A' + 10;
    } else {
      return std::nullopt;
    }
  }
  Advance(4);
  return v;
}

absl::Status Lexer::LexEscape(std::string* out) {
  int line = line_;
  int column = column_;
  Advance(1);  // backslash
  if (AtEnd()) return Error(line, column, "unterminated escape sequence");
  char e = Peek();
  Advance(1);
  switch (e) {
    case '"':
    case '\\':
    case '/':
      out->push_back(e);
      return absl::OkStatus();
    case 'b':
      out->push_back('\b');
      return absl::OkStatus();
    case 'f':
      out->push_back('\f');
      return absl::OkStatus();
    case 'n':
      out->push_back('\n');
      return absl::OkStatus();
    case 'r':
      out->push_back('\r');
      return absl::OkStatus();
    case 't':
      out->push_back('\t');
      return absl::OkStatus();
    case 'u': {
      std::optional<char32_t> u = Hex4();
      if (!u) {
        return Error(line, column, "\\u must be followed by 4 hex digits");
      }
      char32_t cp = *u;
      // A UTF-16 surrogate pair written as two escapes is one character;
      // a lone surrogate cannot be UTF-8, so it becomes U+FFFD.
      if (cp >= 0xD800 && cp <= 0xDBFF && Peek() == '\\' && Peek(1) == 'u') {
        std::size_t saved_pos = pos_;
        int saved_column = column_;
        Advance(2);
        std::optional<char32_t> low = Hex4();
        if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (*low - 0xDC00);
        } else {
          pos_ = saved_pos;
          column_ = saved_column;
        }
      }
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
      AppendUtf8(cp, out);
      return absl::OkStatus();
    }
    default:
      return Error(line, column,
                   absl::StrCat("'\\", std::string(1, e),
                                "' is not a valid escape (JSON escapes "
                                "only: \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
                                "\\uXXXX)"));
  }
}

// """...""": raw text up to the first run of three or more quotes; the
// quotes beyond the last three belong to the string.
absl::StatusOr<Token> Lexer::LexTripleQuoted() {
  int line = line_;
  int column = column_;
  Advance(3);
  std::size_t start = pos_;
  while (true) {
    if (AtEnd()) {
      return Error(line, column, "unterminated \"\"\" string");
    }
    if (Peek() == '"') {
      std::size_t run = 0;
      while (Peek(run) == '"') ++run;
      if (run >= 3) {
        std::size_t end = pos_ + run - 3;
        std::string value(text_.substr(start, end - start));
        Advance(run);
        return Make(TokenKind::kQuotedString, line, column, std::move(value));
      }
      Advance(run);
      continue;
    }
    CodePoint cp = Here();
    if (cp.length == 0) return InvalidUtf8();
    Advance(cp.length);
  }
}

// The characters of a number, taken greedily; if they do not form a
// number after all (`1-2`, `1.2.3`, a 20-digit integer) they are
// unquoted text, as in the reference implementation.
absl::StatusOr<Token> Lexer::LexNumber() {
  int line = line_;
  int column = column_;
  std::size_t start = pos_;
  while (!AtEnd() && kNumberChars.find(Peek()) != std::string_view::npos) {
    Advance(1);
  }
  std::string text(text_.substr(start, pos_ - start));
  bool is_number =
      IsIntegerText(text) ? IsIntegerSyntax(text) : IsDoubleSyntax(text);
  if (is_number) return Make(TokenKind::kNumber, line, column, text);
  if (text.find('+') != std::string::npos) {
    return Error(line, column,
                 absl::StrCat("'", Excerpt(text),
                              "' is not a number, and '+' is reserved in "
                              "unquoted text; quote it"));
  }
  return Make(TokenKind::kUnquotedText, line, column, text);
}

// Unquoted text runs to a forbidden character, whitespace or `//`.
// `true`, `false` and `null` are recognised at its start even when more
// text follows (`truefoo` is true then foo), as the spec says.
absl::StatusOr<Token> Lexer::LexUnquoted() {
  int line = line_;
  int column = column_;
  std::size_t start = pos_;
  while (!AtEnd()) {
    char c = Peek();
    if (kEndsUnquotedText[static_cast<unsigned char>(c)]) break;
    if (c == '/' && Peek(1) == '/') break;
    CodePoint cp = Here();
    if (cp.length == 0) return InvalidUtf8();
    if (cp.length > 1 && IsWhitespace(cp.value)) break;
    Advance(cp.length);
    std::size_t length = pos_ - start;
    if (length == 4 || length == 5) {
      std::string_view so_far = text_.substr(start, length);
      if (so_far == "true") {
        return Make(TokenKind::kTrue, line, column, "true");
      }
      if (so_far == "null") {
        return Make(TokenKind::kNull, line, column, "null");
      }
      if (so_far == "false") {
        return Make(TokenKind::kFalse, line, column, "false");
      }
    }
  }
  return Make(TokenKind::kUnquotedText, line, column,
              std::string(text_.substr(start, pos_ - start)));
}

absl::StatusOr<Token> Lexer::LexSubstitution() {
  int line = line_;
  int column = column_;
  if (Peek(1) != '{') {
    return Error("'$' is only allowed in '${' (quote it to use it in text)");
  }
  Advance(2);
  Token subst = Make(TokenKind::kSubstitution, line, column);
  if (Peek() == '?') {
    Advance(1);
    subst.optional = true;
  }
  std::vector<Token> inner;
  while (true) {
    absl::StatusOr<Token> t = Next();
    if (!t.ok()) return t.status();
    if (t->kind == TokenKind::kCloseBrace) break;
    if (t->kind == TokenKind::kEnd || t->kind == TokenKind::kNewline) {
      return Error(line, column, "'${' is not closed by '}' on its line");
    }
    if (t->kind != TokenKind::kWhitespace && !IsSimpleValue(t->kind)) {
      return Error(t->line, t->column,
                   absl::StrCat(DescribeToken(*t),
                                " is not allowed in a substitution's path"));
    }
    if (t->kind == TokenKind::kSubstitution) {
      return Error(t->line, t->column, "substitutions cannot be nested");
    }
    inner.push_back(*std::move(t));
  }
  while (!inner.empty() && inner.back().kind == TokenKind::kWhitespace) {
    inner.pop_back();
  }
  std::size_t first = 0;
  while (first < inner.size() && inner[first].kind == TokenKind::kWhitespace) {
    ++first;
  }
  if (first == inner.size()) {
    return Error(line, column, "substitution with an empty path: '${}'");
  }
  PathBuilder builder;
  for (std::size_t i = first; i < inner.size(); ++i) {
    const Token& t = inner[i];
    if (t.kind == TokenKind::kQuotedString) {
      builder.AppendQuoted(t.text);
    } else if (t.kind == TokenKind::kWhitespace) {
      builder.AppendWhitespace(t.text);
    } else {
      builder.AppendUnquoted(t.text);
    }
  }
  absl::StatusOr<std::vector<std::string>> path = std::move(builder).Finish();
  if (!path.ok()) return Error(line, column, path.status().message());
  subst.path = *std::move(path);
  return subst;
}

absl::StatusOr<std::vector<Token>> Tokenize(std::string_view text,
                                            std::string_view file) {
  Lexer lexer(text, file);
  std::vector<Token> tokens;
  while (true) {
    absl::StatusOr<Token> t = lexer.Next();
    if (!t.ok()) return t.status();
    bool end = t->kind == TokenKind::kEnd;
    tokens.push_back(*std::move(t));
    if (end) return tokens;
  }
}

bool IsSimpleValue(TokenKind kind) {
  switch (kind) {
    case TokenKind::kQuotedString:
    case TokenKind::kUnquotedText:
    case TokenKind::kNumber:
    case TokenKind::kTrue:
    case TokenKind::kFalse:
    case TokenKind::kNull:
    case TokenKind::kSubstitution:
      return true;
    default:
      return false;
  }
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of file";
    case TokenKind::kNewline:
      return "end of line";
    case TokenKind::kWhitespace:
      return "whitespace";
    case TokenKind::kComma:
      return "','";
    case TokenKind::kColon:
      return "':'";
    case TokenKind::kEquals:
      return "'='";
    case TokenKind::kPlusEquals:
      return "'+='";
    case TokenKind::kOpenBrace:
      return "'{'";
    case TokenKind::kCloseBrace:
      return "'}'";
    case TokenKind::kOpenBracket:
      return "'['";
    case TokenKind::kCloseBracket:
      return "']'";
    case TokenKind::kQuotedString:
      return JsonQuote(Excerpt(token.text));
    case TokenKind::kSubstitution:
      return absl::StrCat("${", token.optional ? "?" : "",
                          DescribePath(token.path), "}");
    default:
      return absl::StrCat("'", Excerpt(token.text), "'");
  }
}

}  // namespace cairn::hocon::internal
