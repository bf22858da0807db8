#include "hocon/internal/resolver.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cairn::hocon::internal {
namespace {

using Path = std::vector<std::string>;

class Resolver {
 public:
  Resolver(NodePtr root, const EnvLookup& env)
      : root_(std::move(root)), env_(env) {}

  // The resolved value at `path` of the root; nullptr when undefined.
  absl::StatusOr<NodePtr> ResolvePath(const Path& path) {
    if (auto it = done_.find(path); it != done_.end()) return it->second;
    NodePtr raw = root_;
    for (size_t i = 0; i < path.size(); ++i) {
      if (raw == nullptr) return nullptr;
      if (raw->kind != Node::Kind::kObject) {
        if (raw->IsResolved()) return nullptr;
        // The value above us is a substitution or concatenation: resolve it
        // first, then go on inside what it became.
        absl::StatusOr<NodePtr> parent =
            ResolvePath(Path(path.begin(), path.begin() + i));
        if (!parent.ok()) return parent;
        raw = *parent;
        if (raw == nullptr || raw->kind != Node::Kind::kObject) return nullptr;
      }
      auto it = raw->fields.find(path[i]);
      raw = it == raw->fields.end() ? nullptr : it->second;
    }
    if (raw == nullptr) return nullptr;
    if (in_progress_.contains(path)) {
      return absl::InvalidArgumentError(
          absl::StrCat(raw->origin.ToString(), ": substitution cycle through '",
                       absl::StrJoin(path, "."), "'"));
    }
    in_progress_.insert(path);
    absl::StatusOr<NodePtr> value = ResolveNode(raw, path);
    in_progress_.erase(path);
    if (value.ok()) done_[path] = *value;
    return value;
  }

 private:
  // `at` is the node's path when it is the value of a field (its fields are
  // then looked up by path, sharing cycle tracking); values in lists,
  // concatenations and delayed merges have none.
  absl::StatusOr<NodePtr> ResolveNode(const NodePtr& n,
                                      const std::optional<Path>& at) {
    if (n->IsResolved()) return n;
    switch (n->kind) {
      case Node::Kind::kObject: {
        std::map<std::string, NodePtr> fields;
        for (const auto& [key, child] : n->fields) {
          absl::StatusOr<NodePtr> v;
          if (at.has_value()) {
            Path child_path = *at;
            child_path.push_back(key);
            v = ResolvePath(child_path);
          } else {
            v = ResolveNode(child, std::nullopt);
          }
          if (!v.ok()) return v;
          if (*v != nullptr) fields[key] = *v;
        }
        return MakeObject(std::move(fields), n->origin);
      }
      case Node::Kind::kList: {
        auto list = std::make_shared<Node>(*n);
        list->items.clear();
        for (const NodePtr& item : n->items) {
          absl::StatusOr<NodePtr> v = ResolveNode(item, std::nullopt);
          if (!v.ok()) return v;
          if (*v != nullptr) list->items.push_back(*v);
        }
        return NodePtr(list);
      }
      case Node::Kind::kSubstitution:
        return Substitute(*n);
      case Node::Kind::kConcatenation:
        return Concatenate(*n);
      case Node::Kind::kDelayedMerge:
        return MergeLate(*n);
      default:
        return n;
    }
  }

  absl::StatusOr<NodePtr> Substitute(const Node& s) {
    absl::StatusOr<NodePtr> v = ResolvePath(s.path);
    if (!v.ok()) return v;
    if (*v != nullptr) return v;
    const std::string name = absl::StrJoin(s.path, ".");
    if (std::optional<std::string> e = env_(name)) {
      return MakeString(*e, s.origin);
    }
    if (s.optional) return nullptr;
    return absl::InvalidArgumentError(
        absl::StrCat(s.origin.ToString(), ": could not resolve substitution ${",
                     name, "}: no such setting and no environment variable"));
  }

  // From the latest value back: objects pile up until a value of another
  // kind (which they replace, or which wins alone); undefined values drop
  // out. Values hidden behind the one that wins are never resolved.
  absl::StatusOr<NodePtr> MergeLate(const Node& m) {
    std::vector<NodePtr> objects;  // latest first
    NodePtr base;
    for (size_t i = m.items.size(); i-- > 0;) {
      absl::StatusOr<NodePtr> v = ResolveNode(m.items[i], std::nullopt);
      if (!v.ok()) return v;
      if (*v == nullptr) continue;
      if ((*v)->kind != Node::Kind::kObject) {
        base = *v;
        break;
      }
      objects.push_back(*v);
    }
    if (objects.empty()) return base;
    NodePtr merged;
    for (size_t i = objects.size(); i-- > 0;) {
      merged = Merge(merged, objects[i]);
    }
    return merged;
  }

  absl::StatusOr<NodePtr> Concatenate(const Node& c) {
    std::vector<NodePtr> parts;
    bool objects = false, lists = false, scalars = false;
    for (const NodePtr& item : c.items) {
      absl::StatusOr<NodePtr> v = ResolveNode(item, std::nullopt);
      if (!v.ok()) return v;
      if (*v == nullptr) continue;  // ${?undefined}
      parts.push_back(*v);
      if ((*v)->is_whitespace) continue;
      objects = objects || (*v)->kind == Node::Kind::kObject;
      lists = lists || (*v)->kind == Node::Kind::kList;
      scalars = scalars || ((*v)->kind != Node::Kind::kObject &&
                            (*v)->kind != Node::Kind::kList);
    }
    if (int(objects) + int(lists) + int(scalars) > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(c.origin.ToString(), ": cannot concatenate ",
                       objects ? "an object" : "a list", " with ",
                       scalars ? "a string" : "a list"));
    }
    if (objects) {
      NodePtr merged;
      for (const NodePtr& p : parts) {
        if (!p->is_whitespace) merged = Merge(merged, p);
      }
      return merged;
    }
    if (lists) {
      auto list = std::make_shared<Node>();
      list->kind = Node::Kind::kList;
      list->origin = c.origin;
      for (const NodePtr& p : parts) {
        if (!p->is_whitespace) {
          list->items.insert(list->items.end(), p->items.begin(),
                             p->items.end());
        }
      }
      return NodePtr(list);
    }
    // Strings. The parser keeps only the whitespace between values, and it
    // stays even next to a ${?x} that turned out undefined (as in the
    // reference); with no value left at all the whole is undefined.
    if (!scalars) return nullptr;
    if (parts.size() == 1) return parts[0];
    std::string text;
    for (const NodePtr& part : parts) {
      const Node& p = *part;
      switch (p.kind) {
        case Node::Kind::kBool:
          text += p.boolean ? "true" : "false";
          break;
        case Node::Kind::kNull:
          text += "null";
          break;
        default:
          text += p.text;
      }
    }
    return MakeString(std::move(text), c.origin);
  }

  NodePtr root_;
  const EnvLookup& env_;
  std::map<Path, NodePtr> done_;
  std::set<Path> in_progress_;
};

}  // namespace

absl::StatusOr<NodePtr> Resolve(const NodePtr& root, const EnvLookup& env) {
  if (root->IsResolved()) return root;
  Resolver resolver(root, env);
  absl::StatusOr<NodePtr> resolved = resolver.ResolvePath({});
  if (!resolved.ok()) return resolved;
  return *resolved == nullptr ? MakeObject({}, root->origin) : *resolved;
}

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

}  // namespace cairn::hocon::internal
