#include "hocon/internal/parser.h"

#include <array>
#include <cassert>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/excerpt.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/path.h"
#include "hocon/internal/string_view.h"
#include "hocon/internal/tokenizer.h"

namespace cairn::hocon::internal {
namespace {

bool StartsValue(TokenKind kind) {
  return IsSimpleValue(kind) || kind == TokenKind::kOpenBrace ||
         kind == TokenKind::kOpenBracket;
}

// Where a token starts, for origins and errors once it is consumed.
struct Where {
  int line;
  int column;
};

Where At(const Token& t) { return {t.line, t.column}; }

class Parser {
 public:
  Parser(std::string_view text, SourceName file, Includer* includer)
      : file_(std::move(file)),
        lexer_(text, file_.str()),
        includer_(includer) {}

  // A syntax error of the tokenizer anywhere in the text wins over any
  // other error (as if the text were tokenized first): the rest of the
  // text is read for one when parsing stops early.
  absl::StatusOr<ValuePtr> ParseDocument() {
    absl::StatusOr<ValuePtr> root = ParseRoot();
    while (!lexed_all_) {
      absl::StatusOr<Token> t = lexer_.Next();
      if (!t.ok()) lex_error_ = t.status();
      lexed_all_ = !t.ok() || t->kind == TokenKind::kEnd;
    }
    if (!lex_error_.ok()) return lex_error_;
    return root;
  }

 private:
  absl::StatusOr<ValuePtr> ParseRoot() {
    SkipSpaceAndNewlines();
    const Token& first = Tok();
    if (first.kind == TokenKind::kOpenBracket) {
      return Error(first,
                   "the root of a document must be an object, not a "
                   "list");
    }
    absl::StatusOr<ValuePtr> root;
    if (first.kind == TokenKind::kOpenBrace) {
      Origin origin = OriginOf(first);
      Skip();
      root = ParseObject(/*braced=*/true, std::move(origin));
      if (!root.ok()) return root.status();
      SkipSpaceAndNewlines();
      if (Tok().kind != TokenKind::kEnd) {
        return Error(Tok(), absl::StrCat("expected the end of the document "
                                         "after the root object, found ",
                                         DescribeToken(Tok())));
      }
    } else {
      root = ParseObject(/*braced=*/false, OriginOf(first));
    }
    return root;
  }

  // The token `ahead` places after the current one (the parser looks at
  // most one further). A reference stays valid until that token is
  // consumed. Past the end of the text (or a syntax error of the
  // tokenizer) every token is kEnd.
  const Token& Tok(std::size_t ahead = 0) { return Buffered(ahead); }
  Token& Buffered(std::size_t ahead) {
    assert(ahead < kLookahead);
    while (buffered_ <= ahead) Fill();
    return lookahead_[(first_ + ahead) % kLookahead];
  }
  // Consumes the current token.
  void Skip() {
    Buffered(0);
    first_ = (first_ + 1) % kLookahead;
    --buffered_;
  }
  // Consumes the current token and returns it.
  Token Take() {
    Token t = std::move(Buffered(0));
    Skip();
    return t;
  }
  // Reads one more token into the lookahead.
  void Fill() {
    Token& slot = lookahead_[(first_ + buffered_) % kLookahead];
    ++buffered_;
    if (lexed_all_) {
      slot = end_;
      return;
    }
    absl::StatusOr<Token> t = lexer_.Next();
    if (!t.ok()) {
      lex_error_ = t.status();
      lexed_all_ = true;
      slot = end_;
      return;
    }
    if (t->kind == TokenKind::kEnd) {
      lexed_all_ = true;
      end_ = *t;
    }
    slot = *std::move(t);
  }

  Origin OriginOf(Where w) const { return Origin(file_, w.line, w.column); }
  Origin OriginOf(const Token& t) const { return OriginOf(At(t)); }
  absl::Status Error(Where w, absl::string_view message) const {
    return absl::InvalidArgumentError(
        absl::StrCat(file_.str(), ":", w.line, ":", w.column, ": ", message));
  }
  absl::Status Error(const Token& t, absl::string_view message) const {
    return Error(At(t), message);
  }

  void SkipSpace() {
    while (Tok().kind == TokenKind::kWhitespace) Skip();
  }
  void SkipSpaceAndNewlines() {
    while (Tok().kind == TokenKind::kWhitespace ||
           Tok().kind == TokenKind::kNewline) {
      Skip();
    }
  }

  // After an element: skips to and past a comma, if there is one before
  // the next element. A newline separates as well as a comma does.
  bool ElementSeparator() {
    bool separated = false;
    while (true) {
      TokenKind k = Tok().kind;
      if (k == TokenKind::kWhitespace) {
        Skip();
      } else if (k == TokenKind::kNewline) {
        separated = true;
        Skip();
      } else if (k == TokenKind::kComma) {
        Skip();
        return true;
      } else {
        return separated;
      }
    }
  }

  [[nodiscard]] absl::Status Deeper(Where t) { return Deeper(t, 1); }
  // `levels` deeper at once: a path key `a.b.c` nests its value as deep
  // as `a { b { c ... } }` would.
  [[nodiscard]] absl::Status Deeper(Where t, int levels) {
    depth_ += levels;
    if (depth_ > kMaxNestingDepth) {
      return Error(t, absl::StrCat("objects and lists nested more than ",
                                   kMaxNestingDepth, " deep"));
    }
    return absl::OkStatus();
  }

  // The fields of an object, after its '{' (or at the start of a document
  // without root braces) up to and including its '}'.
  absl::StatusOr<ValuePtr> ParseObject(bool braced, Origin origin) {
    // In the order written; keys written more than once are merged when
    // the object is complete, all at once (FieldsOf), not one by one.
    FieldEntries fields;
    SkipSpaceAndNewlines();
    while (true) {
      const Token& t = Tok();
      if (t.kind == TokenKind::kCloseBrace) {
        if (!braced) {
          return Error(t, "'}' without a matching '{'");
        }
        Skip();
        break;
      }
      if (t.kind == TokenKind::kEnd) {
        if (braced)
          return Error(t,
                       "end of file inside an object: '}' "
                       "missing");
        break;
      }
      absl::Status s = t.kind == TokenKind::kUnquotedText && t.text == "include"
                           ? ParseInclude(fields)
                           : ParseField(fields);
      if (!s.ok()) return s;
      bool separated = ElementSeparator();
      SkipSpaceAndNewlines();
      const Token& next = Tok();
      bool closes =
          next.kind == (braced ? TokenKind::kCloseBrace : TokenKind::kEnd);
      if (!braced && next.kind == TokenKind::kCloseBrace) {
        return Error(next, "'}' without a matching '{'");
      }
      if (!separated && !closes) {
        return Error(next, absl::StrCat("expected ',' or a new line after a "
                                        "field, found ",
                                        DescribeToken(next),
                                        " (quote text that contains it)"));
      }
    }
    return Value::Object(FieldsOf(std::move(fields)), std::move(origin));
  }

  [[nodiscard]] absl::Status ParseField(FieldEntries& fields) {
    const Where start = At(Tok());
    absl::StatusOr<std::vector<std::string>> key = ParseKey();
    if (!key.ok()) return key.status();
    SkipSpaceAndNewlines();
    const Token& sep = Tok();
    bool append = false;
    if (sep.kind == TokenKind::kColon || sep.kind == TokenKind::kEquals ||
        sep.kind == TokenKind::kPlusEquals) {
      append = sep.kind == TokenKind::kPlusEquals;
      Skip();
      SkipSpaceAndNewlines();
    } else if (sep.kind != TokenKind::kOpenBrace) {
      return Error(sep, absl::StrCat("expected ':', '=', '+=' or '{' after "
                                     "the key '",
                                     DescribePath(*key), "', found ",
                                     DescribeToken(sep)));
    }
    if (append && (lists_ > 0 || appends_ > 0)) {
      // As in the reference implementation: `a += x` stands for
      // `a = ${?a} [x]`, and no substitution can name a list element.
      const std::string name = DescribePath(*key);
      return Error(
          start,
          absl::StrCat("'+=' is not supported inside ",
                       lists_ > 0 ? "a list" : "the value of another '+='",
                       " (it stands for '", name, " = ${?", name,
                       "} [...]', and a substitution cannot refer to a list "
                       "element); set '",
                       name, lists_ > 0 ? "' outside the list" : "' outside",
                       " and refer to it with ${}"));
    }
    const int levels = static_cast<int>(key->size()) - 1;
    if (absl::Status s = Deeper(start, levels); !s.ok()) return s;
    std::size_t pushed = key->size();
    path_.insert(path_.end(), key->begin(), key->end());
    // The value of `+=` becomes a list element.
    if (append) ++appends_;
    absl::StatusOr<ValuePtr> value = ParseValue();
    if (append) --appends_;
    depth_ -= levels;
    if (value.ok() && append) {
      // a += b means a = ${?a} [b].
      Origin origin = (*value)->origin();
      absl::StatusOr<ValuePtr> appended = Concatenate(
          {Value::Substitution({path_, /*optional=*/true, 0}, origin),
           Value::List({*value}, origin)});
      value = std::move(appended);
    }
    path_.resize(path_.size() - pushed);
    if (!value.ok()) return value.status();
    ValuePtr nested = *std::move(value);
    for (std::size_t i = key->size() - 1; i > 0; --i) {
      nested = Value::Object({{(*key)[i], std::move(nested)}}, OriginOf(start));
    }
    fields.emplace_back(key->front(), std::move(nested));
    return absl::OkStatus();
  }

  // A key: a path expression of strings, numbers and the words true,
  // false and null, with the whitespace between them.
  absl::StatusOr<std::vector<std::string>> ParseKey() {
    const Where start = At(Tok());
    PathBuilder builder;
    bool any = false;
    while (true) {
      const Token& t = Tok();
      if (t.kind == TokenKind::kWhitespace) {
        if (!any || !IsSimpleValue(Tok(1).kind)) break;
        builder.AppendWhitespace(t.text);
      } else if (t.kind == TokenKind::kSubstitution) {
        return Error(t, "substitutions are not allowed in keys");
      } else if (t.kind == TokenKind::kQuotedString) {
        builder.AppendQuoted(t.text);
      } else if (IsSimpleValue(t.kind)) {
        builder.AppendUnquoted(t.text);
      } else {
        break;
      }
      any = true;
      Skip();
    }
    if (!any) {
      return Error(
          start, absl::StrCat("expected a key, found ", DescribeToken(Tok())));
    }
    absl::StatusOr<std::vector<std::string>> path = std::move(builder).Finish();
    if (!path.ok()) return Error(start, path.status().message());
    return path;
  }

  // A value: one or more values on one line, concatenated. Whitespace
  // between two simple values is part of the result.
  absl::StatusOr<ValuePtr> ParseValue() {
    std::vector<ValuePtr> pieces;
    while (true) {
      const Token& t = Tok();
      if (!StartsValue(t.kind)) break;
      bool simple = IsSimpleValue(t.kind);
      absl::StatusOr<ValuePtr> v = ParseSingle();
      if (!v.ok()) return v.status();
      pieces.push_back(*std::move(v));
      const Token& n = Tok();
      if (n.kind == TokenKind::kWhitespace && StartsValue(Tok(1).kind)) {
        if (simple && IsSimpleValue(Tok(1).kind)) {
          pieces.push_back(
              Value::String(n.text, OriginOf(n), StringStyle::kWhitespace));
        }
        Skip();
      }
    }
    if (pieces.empty()) {
      return Error(Tok(), absl::StrCat("expected a value, found ",
                                       DescribeToken(Tok())));
    }
    absl::StatusOr<ValuePtr> v = Concatenate(std::move(pieces));
    if (!v.ok()) {
      // Join's message starts with the origin already.
      return absl::InvalidArgumentError(v.status().message());
    }
    return v;
  }

  absl::StatusOr<ValuePtr> ParseSingle() {
    Token t = Take();
    Origin origin = OriginOf(t);
    switch (t.kind) {
      case TokenKind::kQuotedString:
        return Value::String(std::move(t.text), std::move(origin));
      case TokenKind::kUnquotedText:
        return Value::String(std::move(t.text), std::move(origin),
                             StringStyle::kUnquoted);
      case TokenKind::kNumber:
        return Value::Number(std::move(t.text), std::move(origin));
      case TokenKind::kTrue:
        return Value::Bool(true, std::move(origin));
      case TokenKind::kFalse:
        return Value::Bool(false, std::move(origin));
      case TokenKind::kNull:
        return Value::Null(std::move(origin));
      case TokenKind::kSubstitution:
        return Value::Substitution({std::move(t.path), t.optional, 0},
                                   std::move(origin));
      case TokenKind::kOpenBrace: {
        if (absl::Status s = Deeper(At(t)); !s.ok()) return s;
        absl::StatusOr<ValuePtr> o = ParseObject(true, std::move(origin));
        --depth_;
        return o;
      }
      default: {
        if (absl::Status s = Deeper(At(t)); !s.ok()) return s;
        absl::StatusOr<ValuePtr> l = ParseList(std::move(origin));
        --depth_;
        return l;
      }
    }
  }

  // The elements of a list, after its '[' up to and including its ']'.
  absl::StatusOr<ValuePtr> ParseList(Origin origin) {
    ++lists_;
    absl::StatusOr<ValuePtr> list = ParseListElements(std::move(origin));
    --lists_;
    return list;
  }

  absl::StatusOr<ValuePtr> ParseListElements(Origin origin) {
    std::vector<ValuePtr> items;
    SkipSpaceAndNewlines();
    if (Tok().kind == TokenKind::kCloseBracket) {
      Skip();
      return Value::List(std::move(items), std::move(origin));
    }
    while (true) {
      absl::StatusOr<ValuePtr> v = ParseValue();
      if (!v.ok()) return v.status();
      items.push_back(*std::move(v));
      bool separated = ElementSeparator();
      SkipSpaceAndNewlines();
      const Token& next = Tok();
      if (next.kind == TokenKind::kCloseBracket) {
        Skip();
        return Value::List(std::move(items), std::move(origin));
      }
      if (next.kind == TokenKind::kEnd) {
        return Error(next, "end of file inside a list: ']' missing");
      }
      if (!separated) {
        return Error(next, absl::StrCat("expected ',' or a new line between "
                                        "list elements, found ",
                                        DescribeToken(next)));
      }
    }
  }

  // One unit of an include statement: a quoted name, `word(`, `)`.
  struct Atom {
    enum Kind { kString, kOpen, kClose, kOther } kind;
    std::string text;
    Where where;
    // For kOther without text: the token found instead, not consumed.
    std::string token;
  };

  // Inside the parentheses of file(...), required(...) etc. new lines
  // (and the comments the lexer drops) may come between atoms, as in the
  // reference; before the first atom only spaces.
  Atom NextAtom(bool in_parentheses) {
    if (pending_.empty()) {
      if (in_parentheses) {
        SkipSpaceAndNewlines();
      } else {
        SkipSpace();
      }
      const Token& t = Tok();
      if (t.kind == TokenKind::kQuotedString) {
        Token quoted = Take();
        return {Atom::kString, std::move(quoted.text), At(quoted), ""};
      }
      if (t.kind != TokenKind::kUnquotedText) {
        return {Atom::kOther, "", At(t), DescribeToken(t)};
      }
      pending_where_ = At(t);
      pending_ = Take().text;
    }
    if (pending_.front() == ')') {
      pending_.erase(0, 1);
      return {Atom::kClose, ")", pending_where_, ""};
    }
    std::size_t open = pending_.find_first_of("()");
    if (open != std::string::npos && pending_[open] == '(') {
      std::string word = pending_.substr(0, open + 1);
      pending_.erase(0, open + 1);
      return {Atom::kOpen, word, pending_where_, ""};
    }
    std::string word = pending_.substr(0, open);
    pending_.erase(0, open == std::string::npos ? pending_.size() : open);
    return {Atom::kOther, word, pending_where_, ""};
  }

  absl::Status AtomError(const Atom& a, absl::string_view expected) {
    std::string found = a.kind == Atom::kOther && a.text.empty()
                            ? a.token
                            : absl::StrCat("'", Excerpt(a.text), "'");
    return Error(a.where, absl::StrCat("include: expected ", expected,
                                       ", found ", found));
  }

  [[nodiscard]] absl::Status ParseIncludeResource(Atom a,
                                                  IncludeRequest& request) {
    if (a.kind == Atom::kString) {
      request.kind = IncludeKind::kHeuristic;
      request.name = a.text;
      return absl::OkStatus();
    }
    if (a.kind == Atom::kOpen && a.text == "file(") {
      request.kind = IncludeKind::kFile;
    } else if (a.kind == Atom::kOpen && a.text == "url(") {
      request.kind = IncludeKind::kUrl;
    } else if (a.kind == Atom::kOpen && a.text == "classpath(") {
      request.kind = IncludeKind::kClasspath;
    } else {
      return AtomError(a,
                       "a quoted file name, file(\"...\"), url(\"...\"), "
                       "classpath(\"...\") or required(...)");
    }
    Atom name = NextAtom(/*in_parentheses=*/true);
    if (name.kind != Atom::kString) {
      return AtomError(name,
                       absl::StrCat("a quoted name inside ", a.text, ")"));
    }
    request.name = name.text;
    Atom close = NextAtom(/*in_parentheses=*/true);
    if (close.kind != Atom::kClose) return AtomError(close, "')'");
    return absl::OkStatus();
  }

  [[nodiscard]] absl::Status ParseInclude(FieldEntries& fields) {
    const Where keyword = At(Take());
    SkipSpaceAndNewlines();
    IncludeRequest request;
    request.origin = OriginOf(keyword);
    Atom a = NextAtom(/*in_parentheses=*/false);
    absl::Status s;
    if (a.kind == Atom::kOpen && a.text == "required(") {
      request.required = true;
      s = ParseIncludeResource(NextAtom(/*in_parentheses=*/true), request);
      if (s.ok()) {
        Atom close = NextAtom(/*in_parentheses=*/true);
        if (close.kind != Atom::kClose) s = AtomError(close, "')'");
      }
    } else {
      s = ParseIncludeResource(a, request);
    }
    if (s.ok() && !pending_.empty()) {
      s = Error(pending_where_, absl::StrCat("unexpected '", Excerpt(pending_),
                                             "' after an include"));
    }
    pending_.clear();
    if (!s.ok()) return s;
    if (lists_ > 0) {
      // As in the reference implementation: an included file's
      // substitutions are moved below the include point, and a list
      // element has no path to move them to.
      return Error(keyword, "include is not supported inside a list");
    }
    if (includer_ == nullptr) {
      return Error(keyword, "include is not available when parsing this text");
    }
    absl::StatusOr<ValuePtr> included = includer_->Include(request);
    if (!included.ok()) return included.status();
    ValuePtr moved = Relativize(*included, path_);
    for (const auto& [key, value] : moved->fields()) {
      fields.emplace_back(key, value);
    }
    return absl::OkStatus();
  }

  SourceName file_;
  Lexer lexer_;  // reads file_'s name
  // The current token and the one after it, when read: a ring.
  static constexpr std::size_t kLookahead = 2;
  std::array<Token, kLookahead> lookahead_;
  std::size_t first_ = 0;     // the current token's place
  std::size_t buffered_ = 0;  // tokens read and not consumed
  bool lexed_all_ = false;    // the lexer gave kEnd or an error
  Token end_;                 // kEnd, where the text ended
  absl::Status lex_error_;
  Includer* includer_;
  int depth_ = 0;
  int lists_ = 0;    // lists around the value being parsed
  int appends_ = 0;  // values of `+=` around the value being parsed
  // Keys from the document's root to the value being parsed: the target
  // of `+=` and the place includes are moved to.
  std::vector<std::string> path_;
  // Unquoted text of an include statement not yet consumed.
  std::string pending_;
  Where pending_where_ = {0, 0};
};

}  // namespace

absl::StatusOr<ValuePtr> ParseHocon(std::string_view text, SourceName file,
                                    Includer* includer) {
  Parser parser(text, std::move(file), includer);
  return parser.ParseDocument();
}

}  // namespace cairn::hocon::internal
