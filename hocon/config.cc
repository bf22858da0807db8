#include "hocon/config.h"

#include <cmath>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hocon/internal/json.h"
#include "hocon/internal/node.h"
#include "hocon/internal/parser.h"
#include "hocon/internal/resolver.h"
#include "hocon/reference_registry.h"

namespace cairn::hocon {

using internal::Node;
using internal::NodePtr;

namespace {

const char* KindName(Node::Kind k) {
  switch (k) {
    case Node::Kind::kNull:
      return "null";
    case Node::Kind::kBool:
      return "boolean";
    case Node::Kind::kNumber:
      return "number";
    case Node::Kind::kString:
      return "string";
    case Node::Kind::kList:
      return "list";
    case Node::Kind::kObject:
      return "object";
    case Node::Kind::kSubstitution:
    case Node::Kind::kConcatenation:
    case Node::Kind::kDelayedMerge:
      return "unresolved value (call Resolve())";
  }
  return "?";
}

absl::Status WrongType(std::string_view path, const Node& n,
                       std::string_view wanted) {
  return absl::InvalidArgumentError(
      absl::StrCat(n.origin.ToString(), ": ", std::string(path), " has type ",
                   KindName(n.kind), " rather than ", std::string(wanted)));
}

absl::Status BadValue(std::string_view path, const Node& n,
                      std::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(n.origin.ToString(), ": ",
                                                 std::string(path), ": ",
                                                 std::string(message)));
}

// The text of a scalar (strings, numbers as written, booleans); nullopt
// for null, lists and objects.
std::optional<std::string> ScalarText(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kString:
    case Node::Kind::kNumber:
      return n.text;
    case Node::Kind::kBool:
      return n.boolean ? "true" : "false";
    default:
      return std::nullopt;
  }
}

}  // namespace

Config::Config() : root_(internal::MakeObject({}, {"<empty>", 0, 0})) {}

absl::StatusOr<Config> Config::ParseString(std::string_view text,
                                           std::string_view origin) {
  absl::StatusOr<NodePtr> root = internal::Parse(text, std::string(origin));
  if (!root.ok()) return root.status();
  return Config(*root);
}

absl::StatusOr<Config> Config::ParseFile(const std::string& path) {
  absl::StatusOr<NodePtr> root = internal::ParseFile(path);
  if (!root.ok()) return root.status();
  return Config(*root);
}

absl::StatusOr<Config> Config::Load(const Config& app) {
  Config merged = app;
  for (const auto& [module, text] : RegisteredReferenceConfs()) {
    absl::StatusOr<Config> reference =
        ParseString(text, absl::StrCat(module, "/reference.conf"));
    if (!reference.ok()) return reference.status();
    merged = merged.WithFallback(*reference);
  }
  return merged.Resolve();
}

absl::StatusOr<Config> Config::Load() { return Load(Config()); }

Config Config::WithFallback(const Config& fallback) const {
  return Config(internal::Merge(fallback.root_, root_));
}

absl::StatusOr<Config> Config::Resolve(const ResolveOptions& options) const {
  internal::EnvLookup env = !options.use_environment
      ? [](const std::string&) -> std::optional<std::string> {
    return std::nullopt;
  }
  : options.environment ? options.environment
                        : internal::ProcessEnvironment();
  absl::StatusOr<NodePtr> resolved = internal::Resolve(root_, env);
  if (!resolved.ok()) return resolved.status();
  return Config(*resolved);
}

bool Config::IsResolved() const { return root_->IsResolved(); }

absl::StatusOr<NodePtr> Config::Find(std::string_view path) const {
  absl::StatusOr<std::vector<std::string>> keys = internal::SplitPath(path);
  if (!keys.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad path expression '", std::string(path),
                     "': ", keys.status().message()));
  }
  NodePtr n = root_;
  for (const std::string& k : *keys) {
    if (n->kind != Node::Kind::kObject) {
      return absl::InvalidArgumentError(absl::StrCat(
          n->origin.ToString(), ": ", std::string(path), ": cannot look up '",
          k, "' inside a ", KindName(n->kind)));
    }
    auto it = n->fields.find(k);
    if (it == n->fields.end() || it->second->kind == Node::Kind::kNull) {
      return absl::NotFoundError(absl::StrCat(
          "no configuration setting found for key '", std::string(path), "'"));
    }
    n = it->second;
  }
  return n;
}

bool Config::HasPath(std::string_view path) const { return Find(path).ok(); }

std::vector<std::string> Config::Keys() const {
  std::vector<std::string> keys;
  for (const auto& [k, v] : root_->fields) keys.push_back(k);
  return keys;
}

absl::StatusOr<std::string> Config::GetString(std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  std::optional<std::string> text = ScalarText(**n);
  if (!text.has_value()) return WrongType(path, **n, "string");
  return *text;
}

absl::StatusOr<bool> Config::GetBool(std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  if ((*n)->kind == Node::Kind::kBool) return (*n)->boolean;
  if ((*n)->kind == Node::Kind::kString) {
    const std::string& s = (*n)->text;
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    return BadValue(path, **n,
                    absl::StrCat("'", s,
                                 "' is not a boolean (use true/yes/on "
                                 "or false/no/off)"));
  }
  return WrongType(path, **n, "boolean");
}

absl::StatusOr<int64_t> Config::GetLong(std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  if ((*n)->kind != Node::Kind::kNumber && (*n)->kind != Node::Kind::kString) {
    return WrongType(path, **n, "number");
  }
  int64_t v = 0;
  if (absl::SimpleAtoi((*n)->text, &v)) return v;
  double d = 0;
  if (absl::SimpleAtod((*n)->text, &d) && std::trunc(d) == d &&
      std::fabs(d) < 9.2e18) {
    return static_cast<int64_t>(d);
  }
  return BadValue(path, **n,
                  absl::StrCat("'", (*n)->text, "' is not a whole number"));
}

absl::StatusOr<int> Config::GetInt(std::string_view path) const {
  absl::StatusOr<int64_t> v = GetLong(path);
  if (!v.ok()) return v.status();
  if (*v < std::numeric_limits<int>::min() ||
      *v > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(path), ": ", *v, " is out of range for an int"));
  }
  return static_cast<int>(*v);
}

absl::StatusOr<double> Config::GetDouble(std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  double d = 0;
  if (((*n)->kind == Node::Kind::kNumber ||
       (*n)->kind == Node::Kind::kString) &&
      absl::SimpleAtod((*n)->text, &d)) {
    return d;
  }
  return WrongType(path, **n, "number");
}

absl::StatusOr<absl::Duration> Config::GetDuration(
    std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  std::optional<std::string> text = ScalarText(**n);
  if (!text.has_value() || (*n)->kind == Node::Kind::kBool) {
    return WrongType(path, **n, "duration");
  }
  absl::StatusOr<absl::Duration> d = ParseDuration(*text);
  if (!d.ok()) return BadValue(path, **n, std::string(d.status().message()));
  return d;
}

absl::StatusOr<int64_t> Config::GetBytes(std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  std::optional<std::string> text = ScalarText(**n);
  if (!text.has_value() || (*n)->kind == Node::Kind::kBool) {
    return WrongType(path, **n, "size in bytes");
  }
  absl::StatusOr<int64_t> b = ParseBytes(*text);
  if (!b.ok()) return BadValue(path, **n, std::string(b.status().message()));
  return b;
}

absl::StatusOr<Config> Config::GetConfig(std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  if ((*n)->kind != Node::Kind::kObject) return WrongType(path, **n, "object");
  return Config(*n);
}

absl::StatusOr<std::vector<std::string>> Config::GetStringList(
    std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  if ((*n)->kind != Node::Kind::kList) return WrongType(path, **n, "list");
  std::vector<std::string> out;
  for (const NodePtr& item : (*n)->items) {
    std::optional<std::string> text = ScalarText(*item);
    if (!text.has_value()) {
      return WrongType(absl::StrCat(std::string(path), "[", out.size(), "]"),
                       *item, "string");
    }
    out.push_back(*text);
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> Config::GetLongList(
    std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  if ((*n)->kind != Node::Kind::kList) return WrongType(path, **n, "list");
  std::vector<int64_t> out;
  for (const NodePtr& item : (*n)->items) {
    int64_t v = 0;
    if (item->kind != Node::Kind::kNumber ||
        !absl::SimpleAtoi(item->text, &v)) {
      return WrongType(absl::StrCat(std::string(path), "[", out.size(), "]"),
                       *item, "whole number");
    }
    out.push_back(v);
  }
  return out;
}

std::string Config::ToJson() const { return internal::ToJson(*root_); }

absl::StatusOr<std::string> Config::ValueToJson(std::string_view path) const {
  absl::StatusOr<NodePtr> n = Find(path);
  if (!n.ok()) return n.status();
  return internal::ToJson(**n);
}

}  // namespace cairn::hocon
