#include "hocon/internal/tokenizer.h"

#include <string>
#include <vector>

#include "base/status_testing.h"
#include "gtest/gtest.h"

namespace cairn::hocon::internal {
namespace {

// The tokens of `text` as "kind:text" strings, whitespace and the final
// end token left out.
std::vector<std::string> Lex(std::string_view text) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(text, "t");
  EXPECT_OK(tokens);
  std::vector<std::string> out;
  if (!tokens.ok()) return out;
  for (const Token& t : *tokens) {
    if (t.kind == TokenKind::kWhitespace || t.kind == TokenKind::kEnd) continue;
    out.push_back(DescribeToken(t));
  }
  return out;
}

std::string LexError(std::string_view text) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(text, "t");
  EXPECT_FALSE(tokens.ok()) << text;
  return tokens.ok() ? "" : std::string(tokens.status().message());
}

using V = std::vector<std::string>;

TEST(TokenizerTest, Punctuation) {
  EXPECT_EQ(Lex("{}[],:=+="),
            (V{"'{'", "'}'", "'['", "']'", "','", "':'", "'='", "'+='"}));
}

TEST(TokenizerTest, CommentsEndAtTheNewline) {
  EXPECT_EQ(Lex("a # x\nb // y\n// z"),
            (V{"'a'", "end of line", "'b'", "end of line"}));
  EXPECT_EQ(Lex("\"#not\" \"//not\""), (V{"\"#not\"", "\"//not\""}));
}

TEST(TokenizerTest, UnquotedTextStopsAtForbiddenCharacters) {
  EXPECT_EQ(Lex("foo.bar/baz:x"), (V{"'foo.bar/baz'", "':'", "'x'"}));
  EXPECT_EQ(Lex("http://x"), (V{"'http'", "':'"}));  // then a comment
  EXPECT_EQ(Lex("a//b"), (V{"'a'"}));
}

TEST(TokenizerTest, KeywordsAreRecognisedOnlyAtTheStart) {
  absl::StatusOr<std::vector<Token>> t = Tokenize("truefoo footrue null", "t");
  ASSERT_OK(t);
  EXPECT_EQ((*t)[0].kind, TokenKind::kTrue);
  EXPECT_EQ((*t)[1].kind, TokenKind::kUnquotedText);
  EXPECT_EQ((*t)[1].text, "foo");
  EXPECT_EQ((*t)[3].text, "footrue");
  EXPECT_EQ((*t)[5].kind, TokenKind::kNull);
}

TEST(TokenizerTest, NumbersAsTheReferenceReadsThem) {
  absl::StatusOr<std::vector<Token>> t =
      Tokenize("42 -1.5e3 10.0foo 1-2 1.2.3 12345678901234567890 - .5", "t");
  ASSERT_OK(t);
  std::vector<std::pair<TokenKind, std::string>> got;
  for (const Token& tok : *t) {
    if (tok.kind != TokenKind::kWhitespace && tok.kind != TokenKind::kEnd) {
      got.emplace_back(tok.kind, tok.text);
    }
  }
  std::vector<std::pair<TokenKind, std::string>> want = {
      {TokenKind::kNumber, "42"},
      {TokenKind::kNumber, "-1.5e3"},
      {TokenKind::kNumber, "10.0"},
      {TokenKind::kUnquotedText, "foo"},
      {TokenKind::kUnquotedText, "1-2"},
      {TokenKind::kUnquotedText, "1.2.3"},
      {TokenKind::kUnquotedText, "12345678901234567890"},  // beyond int64
      {TokenKind::kUnquotedText, "-"},
      {TokenKind::kUnquotedText, ".5"},
  };
  EXPECT_EQ(got, want);
  EXPECT_NE(LexError("1+2").find("'+' is reserved"), std::string::npos);
}

TEST(TokenizerTest, QuotedStringsTakeJsonEscapes) {
  absl::StatusOr<std::vector<Token>> t =
      Tokenize(R"("a\"b\\c\/d\b\f\n\r\t" "\u00e9\ud83d\ude00" "\ud800x")", "t");
  ASSERT_OK(t);
  EXPECT_EQ((*t)[0].text, "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ((*t)[2].text, "\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ((*t)[4].text, "\xEF\xBF\xBDx");  // lone surrogate: U+FFFD
}

TEST(TokenizerTest, QuotedStringErrors) {
  EXPECT_NE(LexError("\"abc").find("t:1:1: unterminated"), std::string::npos);
  EXPECT_NE(LexError("\"a\nb\"").find("control characters"), std::string::npos);
  EXPECT_NE(LexError(R"("\q")").find("not a valid escape"), std::string::npos);
  EXPECT_NE(LexError(R"("\u12g4")").find("4 hex digits"), std::string::npos);
}

TEST(TokenizerTest, TripleQuotedStringsAreRawAndKeepExtraQuotes) {
  absl::StatusOr<std::vector<Token>> t =
      Tokenize("\"\"\"a\\n\n\"b\"\"\"\"\" \"\"\"\"\"\"\"\"", "t");
  ASSERT_OK(t);
  EXPECT_EQ((*t)[0].text, "a\\n\n\"b\"\"");
  EXPECT_EQ((*t)[2].text, "\"\"");
  EXPECT_EQ((*t)[2].line, 2);
  EXPECT_NE(LexError("\"\"\"abc\"\"").find("unterminated \"\"\""),
            std::string::npos);
}

TEST(TokenizerTest, Substitutions) {
  absl::StatusOr<std::vector<Token>> t =
      Tokenize("${a.b} ${?c} ${  \"x.y\".z  } ${1.2}", "t");
  ASSERT_OK(t);
  EXPECT_EQ((*t)[0].path, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE((*t)[0].optional);
  EXPECT_TRUE((*t)[2].optional);
  EXPECT_EQ((*t)[4].path, (std::vector<std::string>{"x.y", "z"}));
  EXPECT_EQ((*t)[6].path, (std::vector<std::string>{"1", "2"}));
}

TEST(TokenizerTest, SubstitutionErrors) {
  EXPECT_NE(LexError("${a").find("not closed"), std::string::npos);
  EXPECT_NE(LexError("${a\n}").find("not closed"), std::string::npos);
  EXPECT_NE(LexError("${}").find("empty path"), std::string::npos);
  EXPECT_NE(LexError("${a..b}").find("a key is empty"), std::string::npos);
  EXPECT_NE(LexError("${a${b}}").find("nested"), std::string::npos);
  EXPECT_NE(LexError("${a:b}").find("not allowed in a substitution"),
            std::string::npos);
  EXPECT_NE(LexError("$a").find("'$'"), std::string::npos);
}

TEST(TokenizerTest, ReservedCharactersMustBeQuoted) {
  for (std::string_view c : {"`", "^", "?", "!", "@", "*", "&", "\\", "+"}) {
    EXPECT_NE(LexError(std::string("a") + std::string(c)).find("reserved"),
              std::string::npos)
        << c;
  }
}

TEST(TokenizerTest, UnicodeWhitespaceAndInvalidUtf8) {
  // BOM, no-break space and ideographic space are whitespace.
  EXPECT_EQ(Lex("\xEF\xBB\xBF"
                "a\xC2\xA0"
                "b\xE3\x80\x80"
                "c"),
            (V{"'a'", "'b'", "'c'"}));
  EXPECT_EQ(Lex("caf\xC3\xA9"), (V{"'caf\xC3\xA9'"}));
  EXPECT_NE(LexError("a = \xFF").find("t:1:5: invalid UTF-8"),
            std::string::npos);
  EXPECT_NE(LexError("\"\xC0\x80\"").find("invalid UTF-8"), std::string::npos);
}

TEST(TokenizerTest, PositionsCountLinesAndCodePoints) {
  absl::StatusOr<std::vector<Token>> t = Tokenize("a\n  \xC3\xA9 b", "t");
  ASSERT_OK(t);
  const Token& b = (*t)[(*t).size() - 2];
  EXPECT_EQ(b.text, "b");
  EXPECT_EQ(b.line, 2);
  EXPECT_EQ(b.column, 5);
}

}  // namespace
}  // namespace cairn::hocon::internal
