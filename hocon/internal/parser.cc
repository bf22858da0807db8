#include "hocon/internal/parser.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"

namespace cairn::hocon::internal {
namespace {

// Characters that end an unquoted string (the spec's forbidden set).
bool IsForbidden(char c) {
  return std::string_view("$\"{}[]:=,+#`^?!@*&\\").find(c) !=
         std::string_view::npos;
}
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool IsNumber(const std::string& s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size() || !isdigit(static_cast<unsigned char>(s[i]))) return false;
  if (s[i] == '0' && i + 1 < s.size() &&
      isdigit(static_cast<unsigned char>(s[i + 1]))) {
    return false;
  }
  while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || !isdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
    while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= s.size() || !isdigit(static_cast<unsigned char>(s[i]))) {
      return false;
    }
    while (i < s.size() && isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  return i == s.size();
}

std::string DirectoryOf(const std::string& file) {
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? "" : file.substr(0, slash + 1);
}

class Parser {
 public:
  Parser(std::string_view text, std::string file)
      : s_(text), file_(std::move(file)) {}

  absl::StatusOr<NodePtr> ParseRoot() {
    SkipBlank();
    absl::StatusOr<NodePtr> root;
    if (Peek() == '{') {
      Origin o = Here();
      Advance();
      root = ParseObjectBody(/*braced=*/true, {}, o);
    } else if (Peek() == '[') {
      return Error("the root of a config must be an object, not an array");
    } else {
      root = ParseObjectBody(/*braced=*/false, {}, Here());
    }
    if (!root.ok()) return root;
    SkipBlank();
    if (!AtEnd())
      return Error(absl::StrCat("unexpected '", Quote(Peek()), "'"));
    return root;
  }

  absl::StatusOr<std::vector<std::string>> ParsePathOnly() {
    SkipSpaces();
    absl::StatusOr<std::vector<std::string>> path = ParseKey();
    if (!path.ok()) return path;
    SkipSpaces();
    if (!AtEnd()) return Error("unexpected characters after the path");
    return path;
  }

 private:
  // --- cursor ---------------------------------------------------------------
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek(size_t k = 0) const {
    return pos_ + k < s_.size() ? s_[pos_ + k] : '\0';
  }
  bool LookingAt(std::string_view t) const {
    return s_.substr(pos_, t.size()) == t;
  }
  void Advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < s_.size(); ++i) {
      if (s_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
      ++pos_;
    }
  }
  Origin Here() const { return Origin{file_, line_, column_}; }
  absl::Status Error(std::string_view message) const {
    return absl::InvalidArgumentError(
        absl::StrCat(Here().ToString(), ": ", std::string(message)));
  }
  static std::string Quote(char c) {
    if (c == '\n') return "\\n";
    if (c == '\0') return "end of input";
    return std::string(1, c);
  }
  bool AtComment() const { return Peek() == '#' || LookingAt("//"); }
  void SkipToLineEnd() {
    while (!AtEnd() && Peek() != '\n') Advance();
  }
  void SkipSpaces() {
    while (IsSpace(Peek())) Advance();
  }
  // Spaces, newlines and comments.
  void SkipBlank() {
    while (!AtEnd()) {
      if (IsSpace(Peek()) || Peek() == '\n') {
        Advance();
      } else if (AtComment()) {
        SkipToLineEnd();
      } else {
        return;
      }
    }
  }

  // --- objects --------------------------------------------------------------
  absl::StatusOr<NodePtr> ParseObjectBody(bool braced,
                                          const std::vector<std::string>& at,
                                          Origin origin) {
    NodePtr object = MakeObject({}, origin);
    while (true) {
      SkipBlank();
      if (AtEnd()) {
        if (braced) return Error("expected '}' to close the object");
        break;
      }
      if (Peek() == '}') {
        if (!braced) return Error("unexpected '}'");
        Advance();
        break;
      }
      if (Peek() == ',') return Error("expected a key, found ','");
      absl::Status field = LooksLikeInclude() ? ParseInclude(at, &object)
                                              : ParseField(at, &object);
      if (!field.ok()) return field;
      SkipSpaces();
      if (AtComment()) SkipToLineEnd();
      if (Peek() == ',') {
        Advance();
      } else if (!AtEnd() && Peek() != '\n' && Peek() != '}') {
        return Error(
            absl::StrCat("expected ',' or a new line after a value, "
                         "found '",
                         Quote(Peek()), "'"));
      }
    }
    return object;
  }

  absl::Status ParseField(const std::vector<std::string>& at, NodePtr* object) {
    Origin key_origin = Here();
    absl::StatusOr<std::vector<std::string>> key = ParseKey();
    if (!key.ok()) return key.status();
    std::vector<std::string> full = at;
    full.insert(full.end(), key->begin(), key->end());
    SkipBlank();
    NodePtr value;
    bool append = false;
    if (Peek() == '{') {
      Origin o = Here();
      Advance();
      absl::StatusOr<NodePtr> v = ParseObjectBody(true, full, o);
      if (!v.ok()) return v.status();
      value = *v;
    } else {
      if (Peek() == '=' || Peek() == ':') {
        Advance();
      } else if (LookingAt("+=")) {
        Advance(2);
        append = true;
      } else {
        return Error(absl::StrCat("expected ':', '=' or '{' after key '",
                                  key->back(), "'"));
      }
      SkipBlank();
      absl::StatusOr<NodePtr> v = ParseValue(full);
      if (!v.ok()) return v.status();
      value = *v;
    }
    if (append) {
      // `a += x` is `a = ${?a} [x]`.
      auto self = std::make_shared<Node>();
      self->kind = Node::Kind::kSubstitution;
      self->path = full;
      self->optional = true;
      self->origin = key_origin;
      auto list = std::make_shared<Node>();
      list->kind = Node::Kind::kList;
      list->items = {value};
      list->origin = value->origin;
      auto concat = std::make_shared<Node>();
      concat->kind = Node::Kind::kConcatenation;
      concat->items = {self, list};
      concat->origin = key_origin;
      value = concat;
    }
    value = ReplaceSelfReferences(value, full, Lookup(*object, *key));
    // a.b.c = v is a { b { c = v } }.
    for (size_t i = key->size(); i-- > 1;) {
      value = MakeObject({{(*key)[i], value}}, key_origin);
    }
    std::map<std::string, NodePtr> fields = (*object)->fields;
    auto it = fields.find(key->front());
    fields[key->front()] =
        it == fields.end() ? value : Merge(it->second, value);
    *object = MakeObject(std::move(fields), (*object)->origin);
    return absl::OkStatus();
  }

  // The value at `key` within `object` so far (nullptr if none).
  static NodePtr Lookup(const NodePtr& object,
                        const std::vector<std::string>& key) {
    NodePtr n = object;
    for (const std::string& k : key) {
      if (n == nullptr || n->kind != Node::Kind::kObject) return nullptr;
      auto it = n->fields.find(k);
      n = it == n->fields.end() ? nullptr : it->second;
    }
    return n;
  }

  // `path = ${path} ...` refers to the value `path` had before this field:
  // substitute it now (an optional one with no earlier value vanishes).
  static NodePtr ReplaceSelfReferences(const NodePtr& value,
                                       const std::vector<std::string>& self,
                                       const NodePtr& previous) {
    if (value->kind == Node::Kind::kSubstitution && value->path == self) {
      if (previous != nullptr) return previous;
      if (value->optional) {
        auto empty = std::make_shared<Node>(*value);
        empty->kind = Node::Kind::kConcatenation;  // resolves to nothing
        empty->items.clear();
        return empty;
      }
      return value;
    }
    if (value->kind == Node::Kind::kConcatenation ||
        value->kind == Node::Kind::kList) {
      bool changed = false;
      std::vector<NodePtr> items;
      for (const NodePtr& item : value->items) {
        items.push_back(ReplaceSelfReferences(item, self, previous));
        changed = changed || items.back() != item;
      }
      if (!changed) return value;
      auto copy = std::make_shared<Node>(*value);
      copy->items = std::move(items);
      return copy;
    }
    return value;
  }

  // --- includes -------------------------------------------------------------
  bool LooksLikeInclude() const {
    if (!LookingAt("include")) return false;
    size_t i = pos_ + 7;
    if (i >= s_.size() || !IsSpace(s_[i])) return false;
    while (i < s_.size() && IsSpace(s_[i])) ++i;
    return i < s_.size() &&
           (s_[i] == '"' || s_.substr(i, 5) == "file(" ||
            s_.substr(i, 9) == "required(" || s_.substr(i, 4) == "url(" ||
            s_.substr(i, 10) == "classpath(");
  }

  absl::Status ParseInclude(const std::vector<std::string>& at,
                            NodePtr* object) {
    Advance(7);  // "include"
    SkipSpaces();
    bool required = false;
    if (LookingAt("required(")) {
      Advance(9);
      required = true;
      SkipSpaces();
    }
    std::string_view kind;
    for (std::string_view k : {"file(", "url(", "classpath("}) {
      if (LookingAt(k)) {
        kind = k.substr(0, k.size() - 1);
        Advance(k.size());
        SkipSpaces();
        break;
      }
    }
    if (Peek() != '"') return Error("include needs a quoted file name");
    absl::StatusOr<std::string> name = ParseQuoted();
    if (!name.ok()) return name.status();
    for (int parens = (kind.empty() ? 0 : 1) + (required ? 1 : 0); parens > 0;
         --parens) {
      SkipSpaces();
      if (Peek() != ')') return Error("expected ')' in the include");
      Advance();
    }
    if (!kind.empty() && kind != "file") {
      return Error(absl::StrCat("include ", std::string(kind),
                                "(...) is not supported: use file(...)"));
    }
    // Relative to the including file; the included keys land in the object
    // being parsed (relative to it), as the spec asks.
    std::string path = !name->empty() && (*name)[0] == '/'
                           ? *name
                           : DirectoryOf(file_) + *name;
    absl::StatusOr<NodePtr> included = ParseFile(path);
    if (!included.ok()) {
      if (absl::IsNotFound(included.status()) && !required) {
        return absl::OkStatus();  // a missing include is silently empty
      }
      return Error(absl::StrCat("in include \"", *name,
                                "\": ", included.status().message()));
    }
    *object = Merge(*object, Reroot(*included, at));
    return absl::OkStatus();
  }

  // Substitutions in an included file are relative to where it is
  // included: `${y}` included inside `foo { }` means `${foo.y}`.
  static NodePtr Reroot(const NodePtr& n, const std::vector<std::string>& at) {
    if (at.empty() || n->IsResolved()) return n;
    auto copy = std::make_shared<Node>(*n);
    if (n->kind == Node::Kind::kSubstitution) {
      copy->path.insert(copy->path.begin(), at.begin(), at.end());
      return copy;
    }
    for (NodePtr& item : copy->items) item = Reroot(item, at);
    for (auto& [key, value] : copy->fields) value = Reroot(value, at);
    return copy;
  }

  // --- keys -----------------------------------------------------------------
  absl::StatusOr<std::vector<std::string>> ParseKey() {
    std::vector<std::string> keys;
    std::string current;
    bool any = false;
    while (!AtEnd()) {
      char c = Peek();
      if (c == '"') {
        absl::StatusOr<std::string> q = ParseQuoted();
        if (!q.ok()) return q.status();
        current += *q;
        any = true;
      } else if (c == '.') {
        if (!any) return Error("empty key before '.'");
        keys.push_back(std::move(current));
        current.clear();
        any = false;
        Advance();
      } else if (IsSpace(c)) {
        // Spaces inside a key belong to it; spaces before ':' do not.
        size_t save = pos_;
        int line = line_, column = column_;
        std::string spaces;
        while (IsSpace(Peek())) {
          spaces.push_back(Peek());
          Advance();
        }
        char next = Peek();
        if (AtEnd() || next == '\n' || IsForbidden(next) || next == '.' ||
            AtComment()) {
          pos_ = save;
          line_ = line;
          column_ = column;
          break;
        }
        current += spaces;
      } else if (c == '\n' || IsForbidden(c) || AtComment()) {
        break;
      } else {
        current.push_back(c);
        any = true;
        Advance();
      }
    }
    if (!any) {
      return Error(AtEnd() ? "expected a key"
                           : absl::StrCat("expected a key, found '",
                                          Quote(Peek()), "'"));
    }
    keys.push_back(std::move(current));
    return keys;
  }

  // --- values ---------------------------------------------------------------
  absl::StatusOr<NodePtr> ParseValue(const std::vector<std::string>& at) {
    std::vector<NodePtr> pieces;
    std::vector<bool> unquoted;
    Origin origin = Here();
    while (true) {
      Origin ws_origin = Here();
      std::string ws;
      while (IsSpace(Peek())) {
        ws.push_back(Peek());
        Advance();
      }
      char c = Peek();
      if (AtEnd() || c == ',' || c == '}' || c == ']' || c == '\n' ||
          AtComment()) {
        break;
      }
      if (!pieces.empty() && !ws.empty()) {
        NodePtr space = MakeString(ws, ws_origin);
        const_cast<Node&>(*space).is_whitespace = true;
        pieces.push_back(space);
        unquoted.push_back(false);
      }
      absl::StatusOr<NodePtr> piece;
      bool is_unquoted = false;
      if (c == '"') {
        Origin o = Here();
        absl::StatusOr<std::string> s =
            LookingAt("\"\"\"") ? ParseTripleQuoted() : ParseQuoted();
        if (!s.ok()) return s.status();
        piece = MakeString(*s, o);
      } else if (c == '{') {
        Origin o = Here();
        Advance();
        piece = ParseObjectBody(true, at, o);
      } else if (c == '[') {
        piece = ParseArray(at);
      } else if (c == '$' && Peek(1) == '{') {
        piece = ParseSubstitution();
      } else if (IsForbidden(c)) {
        return Error(absl::StrCat("'", Quote(c),
                                  "' is not allowed in an unquoted value "
                                  "(quote the string)"));
      } else {
        Origin o = Here();
        std::string word;
        while (!AtEnd() && !IsSpace(Peek()) && Peek() != '\n' &&
               !IsForbidden(Peek()) && !LookingAt("//")) {
          word.push_back(Peek());
          Advance();
        }
        piece = MakeString(word, o);
        is_unquoted = true;
      }
      if (!piece.ok()) return piece.status();
      pieces.push_back(*piece);
      unquoted.push_back(is_unquoted);
    }
    if (pieces.empty()) return Error("expected a value");
    if (pieces.size() == 1) {
      return unquoted[0] ? Literal(pieces[0]) : pieces[0];
    }
    // Unquoted words keep their text in a concatenation (numbers as written).
    auto concat = std::make_shared<Node>();
    concat->kind = Node::Kind::kConcatenation;
    concat->origin = origin;
    for (size_t i = 0; i < pieces.size(); ++i) {
      concat->items.push_back(pieces[i]);
    }
    return concat;
  }

  // true, false, null and numbers; anything else stays a string.
  static NodePtr Literal(const NodePtr& word) {
    auto n = std::make_shared<Node>(*word);
    if (word->text == "true" || word->text == "false") {
      n->kind = Node::Kind::kBool;
      n->boolean = word->text == "true";
    } else if (word->text == "null") {
      n->kind = Node::Kind::kNull;
    } else if (IsNumber(word->text)) {
      n->kind = Node::Kind::kNumber;
    }
    return n;
  }

  absl::StatusOr<NodePtr> ParseArray(const std::vector<std::string>& at) {
    auto list = std::make_shared<Node>();
    list->kind = Node::Kind::kList;
    list->origin = Here();
    Advance();  // '['
    while (true) {
      SkipBlank();
      if (AtEnd()) return Error("expected ']' to close the array");
      if (Peek() == ']') {
        Advance();
        return NodePtr(list);
      }
      if (Peek() == ',') return Error("expected a value, found ','");
      absl::StatusOr<NodePtr> item = ParseValue(at);
      if (!item.ok()) return item.status();
      list->items.push_back(*item);
      SkipSpaces();
      if (AtComment()) SkipToLineEnd();
      if (Peek() == ',') {
        Advance();
      } else if (Peek() != '\n' && Peek() != ']') {
        return Error(absl::StrCat("expected ',' or ']' in an array, found '",
                                  Quote(Peek()), "'"));
      }
    }
  }

  absl::StatusOr<NodePtr> ParseSubstitution() {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::kSubstitution;
    n->origin = Here();
    Advance(2);  // "${"
    if (Peek() == '?') {
      n->optional = true;
      Advance();
    }
    SkipSpaces();
    absl::StatusOr<std::vector<std::string>> path = ParseKey();
    if (!path.ok()) return path.status();
    SkipSpaces();
    if (Peek() != '}') return Error("expected '}' to close the substitution");
    Advance();
    n->path = *std::move(path);
    return NodePtr(n);
  }

  absl::StatusOr<std::string> ParseQuoted() {
    Advance();  // '"'
    std::string out;
    while (true) {
      if (AtEnd() || Peek() == '\n') return Error("unterminated string");
      char c = Peek();
      Advance();
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      char e = Peek();
      Advance();
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          for (int i = 0; i < 4; ++i) {
            char h = Peek();
            if (!isxdigit(static_cast<unsigned char>(h))) {
              return Error("bad \\u escape: expected four hex digits");
            }
            cp = cp * 16 + (isdigit(static_cast<unsigned char>(h))
                                ? h - '0'
                                : (tolower(h) - 'a' + 10));
            Advance();
          }
          AppendUtf8(cp, &out);
          break;
        }
        default:
          return Error(absl::StrCat("bad escape '\\", Quote(e), "'"));
      }
    }
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // """raw text"""; quotes beyond the closing three belong to the string.
  absl::StatusOr<std::string> ParseTripleQuoted() {
    Advance(3);
    std::string out;
    while (true) {
      if (AtEnd()) return Error("unterminated \"\"\" string");
      if (LookingAt("\"\"\"")) {
        size_t run = 0;
        while (Peek(run) == '"') ++run;
        out.append(run - 3, '"');
        Advance(run);
        return out;
      }
      out.push_back(Peek());
      Advance();
    }
  }

  std::string_view s_;
  std::string file_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

absl::StatusOr<NodePtr> Parse(std::string_view text, const std::string& file) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // BOM
  return Parser(text, file).ParseRoot();
}

absl::StatusOr<NodePtr> ParseFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return Parse(buffer.str(), path);
}

absl::StatusOr<std::vector<std::string>> SplitPath(std::string_view path) {
  return Parser(path, "<path>").ParsePathOnly();
}

}  // namespace cairn::hocon::internal
