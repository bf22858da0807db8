#include "hocon/internal/resolver.h"

#include <cstdlib>
#include <map>
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
  // `at` is the node's path when it is a field (for cycle tracking).
  absl::StatusOr<NodePtr> ResolveNode(const NodePtr& n, const Path& at) {
    if (n->IsResolved()) return n;
    switch (n->kind) {
      case Node::Kind::kObject: {
        std::map<std::string, NodePtr> fields;
        for (const auto& [key, child] : n->fields) {
          Path child_path = at;
          child_path.push_back(key);
          absl::StatusOr<NodePtr> v = ResolvePath(child_path);
          if (!v.ok()) return v;
          if (*v != nullptr) fields[key] = *v;
        }
        return MakeObject(std::move(fields), n->origin);
      }
      case Node::Kind::kList: {
        auto list = std::make_shared<Node>(*n);
        list->items.clear();
        for (const NodePtr& item : n->items) {
          absl::StatusOr<NodePtr> v = ResolveNode(item, {});
          if (!v.ok()) return v;
          if (*v != nullptr) list->items.push_back(*v);
        }
        return NodePtr(list);
      }
      case Node::Kind::kSubstitution:
        return Substitute(*n);
      case Node::Kind::kConcatenation:
        return Concatenate(*n);
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

  absl::StatusOr<NodePtr> Concatenate(const Node& c) {
    std::vector<NodePtr> parts;
    bool objects = false, lists = false, scalars = false;
    for (const NodePtr& item : c.items) {
      absl::StatusOr<NodePtr> v = ResolveNode(item, {});
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
    // Strings: whitespace between values is kept, not around them.
    while (!parts.empty() && parts.back()->is_whitespace) parts.pop_back();
    size_t first = 0;
    while (first < parts.size() && parts[first]->is_whitespace) ++first;
    if (first == parts.size()) return nullptr;
    if (parts.size() - first == 1) return parts[first];
    std::string text;
    for (size_t i = first; i < parts.size(); ++i) {
      const Node& p = *parts[i];
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
