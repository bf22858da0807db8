#ifndef CAIRN_HOCON_INTERNAL_VALUE_H_
#define CAIRN_HOCON_INTERNAL_VALUE_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cairn::hocon::internal {

// The name of what values were read from (a file, "<string>", an
// environment variable), shared by all their origins. One pointer, where
// a std::shared_ptr takes two: every value holds one. Copies share the
// name (an atomic count); any thread may copy and read them.
class SourceName {
 public:
  SourceName() = default;  // "<unknown>"
  explicit SourceName(std::string name);
  SourceName(const SourceName& other);
  SourceName& operator=(SourceName other);
  SourceName(SourceName&& other) noexcept
      : shared_(std::exchange(other.shared_, nullptr)) {}
  ~SourceName();

  const std::string& str() const;

 private:
  struct Shared;
  Shared* shared_ = nullptr;
};

// Where a value was written. Cheap to copy: the file name is shared.
class Origin {
 public:
  Origin() = default;
  Origin(SourceName file, int line, int column)
      : file_(std::move(file)), line_(line), column_(column) {}

  const std::string& file() const;
  int line() const { return line_; }
  int column() const { return column_; }
  // "file:line:column", or just "file" for values with no position (such
  // as environment variables).
  std::string ToString() const;

 private:
  SourceName file_;
  int line_ = 0;
  int column_ = 0;
};

class Value;

// How deep objects and lists may nest below the root of a document, as
// written (braces and path keys alike) and as resolved (substitutions can
// nest deeper than the text): deeper than any real configuration, and it
// keeps hostile input from exhausting the stack of the parser, the
// resolver and the renderer. A document within it prints as JSON that
// parses again.
inline constexpr int kMaxNestingDepth = 200;
// Values are immutable once built and shared freely between trees (and
// threads): merging and resolving build new nodes around unchanged ones.
using ValuePtr = std::shared_ptr<const Value>;

// An object's fields, sorted by key, in one vector: 48 bytes a field,
// where a std::map node takes 96 (a file of a million keys is mostly
// fields).
class Fields {
 public:
  using value_type = std::pair<std::string, ValuePtr>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  Fields() = default;
  // In any order; of a repeated key the first is kept (as by emplace).
  Fields(std::initializer_list<value_type> fields);
  // `fields` sorted by key, no key twice: adopted as they are.
  static Fields Sorted(std::vector<value_type> fields);

  bool empty() const { return fields_.empty(); }
  std::size_t size() const { return fields_.size(); }
  iterator begin() { return fields_.begin(); }
  iterator end() { return fields_.end(); }
  const_iterator begin() const { return fields_.begin(); }
  const_iterator end() const { return fields_.end(); }
  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const;
  // Adds `key` unless it is there, as std::map::emplace. Constant time
  // for a key after all the others, linear otherwise: many fields in any
  // order are built with Sorted.
  std::pair<iterator, bool> emplace(std::string key, ValuePtr value);
  iterator erase(const_iterator it) { return fields_.erase(it); }

 private:
  std::vector<value_type> fields_;
};

enum class Kind : std::uint8_t {
  kNull,
  kBool,
  kNumber,
  kString,
  kList,
  kObject,
  // The three kinds below exist only before resolution.
  kSubstitution,   // ${path} or ${?path}
  kConcatenation,  // pieces joined once their substitutions are known
  kMergeStack,     // values for one key that can only merge once resolved
};

// How a string was written; only matters inside a concatenation, where
// whitespace between a list or object and another value is dropped.
enum class StringStyle : std::uint8_t { kQuoted, kUnquoted, kWhitespace };

struct Substitution {
  std::vector<std::string> path;
  bool optional = false;
  // The first `prefix_length` keys of `path` were added when the file it
  // was written in was included below the root; lookups try the full path
  // first, then the path without them.
  std::size_t prefix_length = 0;
};

// A HOCON value: JSON's six types plus, before resolution, substitutions,
// concatenations and merge stacks. Built only through the factories.
class Value {
 public:
  static ValuePtr Null(Origin origin);
  static ValuePtr Bool(bool value, Origin origin);
  // `text` must be a number as the tokenizer accepts it; it is kept as
  // written (numbers concatenate as their text).
  static ValuePtr Number(std::string text, Origin origin);
  static ValuePtr String(std::string value, Origin origin,
                         StringStyle style = StringStyle::kQuoted);
  static ValuePtr List(std::vector<ValuePtr> items, Origin origin);
  // `ignores_fallbacks`: this object replaced a non-object, so merging it
  // over anything else must not bring that thing's keys back.
  static ValuePtr Object(Fields fields, Origin origin,
                         bool ignores_fallbacks = false);
  static ValuePtr Substitution(internal::Substitution subst, Origin origin);
  // At least two pieces, at least one of them unresolved.
  static ValuePtr Concatenation(std::vector<ValuePtr> pieces, Origin origin);
  // `stack`: highest priority first, at least two values, no nested stacks.
  static ValuePtr MergeStack(std::vector<ValuePtr> stack, Origin origin);

  Kind kind() const { return kind_; }
  const Origin& origin() const { return origin_; }
  // True when no substitution remains anywhere inside.
  bool resolved() const { return resolved_; }
  // A value that wins over whatever it is merged with: resolved
  // non-objects, objects that replaced a non-object, and stacks ending in
  // such a value.
  bool ignores_fallbacks() const { return ignores_fallbacks_; }
  bool is_object() const { return kind_ == Kind::kObject; }
  bool is_list() const { return kind_ == Kind::kList; }
  // Substitutions, concatenations and merge stacks: their type is unknown
  // until they are resolved.
  bool is_unmergeable() const {
    return kind_ == Kind::kSubstitution || kind_ == Kind::kConcatenation ||
           kind_ == Kind::kMergeStack;
  }

  // Each accessor below is for the kinds it names only.
  bool boolean() const {  // kBool
    assert(kind_ == Kind::kBool);
    return payload_.boolean;
  }
  // String contents, or a number as written.
  const std::string& text() const {  // kString, kNumber
    assert(kind_ == Kind::kString || kind_ == Kind::kNumber);
    return payload_.text;
  }
  StringStyle string_style() const { return style_; }
  // List elements, concatenation pieces or the merge stack.
  const std::vector<ValuePtr>& items() const {
    assert(HoldsItems(kind_));
    return payload_.items;
  }
  const Fields& fields() const {  // kObject
    assert(kind_ == Kind::kObject);
    return payload_.fields;
  }
  const internal::Substitution& substitution() const {  // kSubstitution
    assert(kind_ == Kind::kSubstitution);
    return *payload_.substitution;
  }
  // The field `key` of an object, or null.
  ValuePtr Field(std::string_view key) const;

  // Public for std::make_shared; use the factories.
  struct Token {};
  Value(Token, Kind kind, Origin origin);
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  ~Value();

 private:
  static bool HoldsItems(Kind kind) {
    return kind == Kind::kList || kind == Kind::kConcatenation ||
           kind == Kind::kMergeStack;
  }

  // The one-byte members together, then the 8-aligned ones, and the
  // payload in a union that `kind_` tells apart (a std::variant would add
  // 8 bytes for its own index): a value is 56 bytes, 72 with its
  // std::make_shared control block, and a file of a million keys holds a
  // million of them.
  Kind kind_;
  bool resolved_ = true;
  bool ignores_fallbacks_ = false;
  StringStyle style_ = StringStyle::kQuoted;
  Origin origin_;
  union Payload {
    // Constructed and destroyed by Value, as `kind_` says.
    Payload() {}
    ~Payload() {}
    bool boolean;
    std::string text;
    std::vector<ValuePtr> items;
    Fields fields;
    // Rare, so held apart: inline it would make every value bigger.
    std::unique_ptr<const internal::Substitution> substitution;
  } payload_;
};

// "number", "string", ... for error messages.
std::string_view KindName(Kind kind);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_VALUE_H_
