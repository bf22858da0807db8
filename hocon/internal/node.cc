#include "hocon/internal/node.h"

#include "absl/strings/str_cat.h"

namespace cairn::hocon::internal {

std::string Origin::ToString() const {
  return absl::StrCat(file, ":", line, ":", column);
}

bool Node::IsResolved() const {
  switch (kind) {
    case Kind::kSubstitution:
    case Kind::kConcatenation:
    case Kind::kDelayedMerge:
      return false;
    case Kind::kList:
      for (const NodePtr& n : items) {
        if (!n->IsResolved()) return false;
      }
      return true;
    case Kind::kObject:
      for (const auto& [k, n] : fields) {
        if (!n->IsResolved()) return false;
      }
      return true;
    default:
      return true;
  }
}

NodePtr MakeNull(Origin o) {
  auto n = std::make_shared<Node>();
  n->origin = std::move(o);
  return n;
}

NodePtr MakeString(std::string s, Origin o) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kString;
  n->text = std::move(s);
  n->origin = std::move(o);
  return n;
}

NodePtr MakeObject(std::map<std::string, NodePtr> fields, Origin o) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Kind::kObject;
  n->fields = std::move(fields);
  n->origin = std::move(o);
  return n;
}

NodePtr Merge(const NodePtr& earlier, const NodePtr& later) {
  if (earlier == nullptr) return later;
  const bool both_objects = earlier->kind == Node::Kind::kObject &&
                            later->kind == Node::Kind::kObject;
  const bool later_decides =
      (later->IsResolved() && later->kind != Node::Kind::kObject) ||
      (later->kind == Node::Kind::kObject && earlier->IsResolved());
  if (!both_objects && !later_decides) {
    auto delayed = std::make_shared<Node>();
    delayed->kind = Node::Kind::kDelayedMerge;
    delayed->origin = later->origin;
    if (earlier->kind == Node::Kind::kDelayedMerge) {
      delayed->items = earlier->items;
    } else {
      delayed->items.push_back(earlier);
    }
    delayed->items.push_back(later);
    return delayed;
  }
  if (earlier->kind != Node::Kind::kObject ||
      later->kind != Node::Kind::kObject) {
    return later;
  }
  std::map<std::string, NodePtr> fields = earlier->fields;
  for (const auto& [key, value] : later->fields) {
    auto it = fields.find(key);
    fields[key] = it == fields.end() ? value : Merge(it->second, value);
  }
  return MakeObject(std::move(fields), later->origin);
}

}  // namespace cairn::hocon::internal
