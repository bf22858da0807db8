#ifndef CAIRN_HOCON_INTERNAL_NODE_H_
#define CAIRN_HOCON_INTERNAL_NODE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cairn::hocon::internal {

// Where a value was written, for error messages.
struct Origin {
  std::string file;  // "<string>" for parsed text
  int line = 0;
  int column = 0;
  std::string ToString() const;  // file:line:column
};

struct Node;
using NodePtr = std::shared_ptr<const Node>;

// A HOCON value. Parsed trees may hold substitutions and concatenations;
// resolved trees hold only the first six kinds. Immutable once built.
struct Node {
  enum class Kind {
    kNull,
    kBool,
    kNumber,  // `text` keeps the number as written
    kString,
    kList,
    kObject,
    kSubstitution,   // ${path} or ${?path}: `path`, `optional`
    kConcatenation,  // `items`, joined when resolved
    kDelayedMerge,   // duplicate-key `items`, earliest first, merged once
                     // they are resolved (see Merge)
  };

  Kind kind = Kind::kNull;
  Origin origin;
  bool boolean = false;
  std::string text;            // number as written, string value
  std::vector<NodePtr> items;  // list elements or concatenation parts
  std::map<std::string, NodePtr> fields;  // object, keys sorted
  std::vector<std::string> path;          // substitution path
  bool optional = false;
  // A run of spaces between concatenated values: kept between strings,
  // ignored between objects or lists.
  bool is_whitespace = false;

  bool IsResolved() const;
};

NodePtr MakeNull(Origin o);
NodePtr MakeString(std::string s, Origin o);
NodePtr MakeObject(std::map<std::string, NodePtr> fields, Origin o);

// `later` over `earlier`, as duplicate keys combine: two objects merge
// field by field; a later value of another kind replaces. Where either is
// still unresolved, the choice waits for resolution (a kDelayedMerge node):
// `a = ${x}` then `a = { c = 1 }` merges into what x is, and a later
// `${?undefined}` leaves the earlier value in place.
NodePtr Merge(const NodePtr& earlier, const NodePtr& later);

}  // namespace cairn::hocon::internal

#endif  // CAIRN_HOCON_INTERNAL_NODE_H_
