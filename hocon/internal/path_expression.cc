#include "hocon/internal/path_expression.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/excerpt.h"
#include "hocon/internal/path.h"
#include "hocon/internal/string_view.h"
#include "hocon/internal/tokenizer.h"

namespace cairn::hocon::internal {
namespace {

bool IsPlain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

absl::Status Invalid(std::string_view path, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid path '", Excerpt(path), "': ", Av(why)));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParsePathExpression(
    std::string_view path) {
  // Nearly every path is plain words and dots; those need no tokenizer.
  if (!path.empty() && std::all_of(path.begin(), path.end(), IsPlain)) {
    PathBuilder builder;
    builder.AppendUnquoted(path);
    absl::StatusOr<std::vector<std::string>> keys = std::move(builder).Finish();
    if (!keys.ok()) return Invalid(path, "a key is empty");
    return keys;
  }
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(path, "path");
  if (!tokens.ok()) return Invalid(path, "not a path expression");
  std::vector<Token>& t = *tokens;
  t.pop_back();  // kEnd
  while (!t.empty() && t.back().kind == TokenKind::kWhitespace) t.pop_back();
  std::size_t first = 0;
  while (first < t.size() && t[first].kind == TokenKind::kWhitespace) ++first;
  if (first == t.size()) return Invalid(path, "it is empty");
  PathBuilder builder;
  for (std::size_t i = first; i < t.size(); ++i) {
    switch (t[i].kind) {
      case TokenKind::kQuotedString:
        builder.AppendQuoted(t[i].text);
        break;
      case TokenKind::kWhitespace:
        builder.AppendWhitespace(t[i].text);
        break;
      case TokenKind::kUnquotedText:
      case TokenKind::kNumber:
      case TokenKind::kTrue:
      case TokenKind::kFalse:
      case TokenKind::kNull:
        builder.AppendUnquoted(t[i].text);
        break;
      default:
        return Invalid(path, absl::StrCat(DescribeToken(t[i]),
                                          " is not allowed in a path"));
    }
  }
  absl::StatusOr<std::vector<std::string>> keys = std::move(builder).Finish();
  if (!keys.ok()) return Invalid(path, "a key is empty (quote it: \"\")");
  return keys;
}

}  // namespace cairn::hocon::internal
