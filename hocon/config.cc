#include "hocon/config.h"

#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hocon/internal/convert.h"
#include "hocon/internal/excerpt.h"
#include "hocon/internal/includer.h"
#include "hocon/internal/json_writer.h"
#include "hocon/internal/merge.h"
#include "hocon/internal/path_expression.h"
#include "hocon/internal/properties.h"
#include "hocon/internal/resolver.h"
#include "hocon/internal/string_view.h"
#include "hocon/internal/value.h"
#include "hocon/reference_registry.h"

namespace cairn::hocon {
namespace {

using internal::Av;
using internal::ValuePtr;

ValuePtr EmptyObject() {
  static const auto* empty = new ValuePtr(internal::Value::Object(
      {}, internal::Origin(internal::SourceName("<empty>"), 0, 0)));
  return *empty;
}

internal::LoadOptions ToLoadOptions(const ParseOptions& options) {
  return internal::LoadOptions{options.resource_dirs};
}

absl::StatusOr<int> ToInt(int64_t v) {
  if (v < std::numeric_limits<int>::min() ||
      v > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat(v, " is out of the range of int"));
  }
  return static_cast<int>(v);
}

absl::StatusOr<int> AsInt(const internal::Value& v) {
  absl::StatusOr<int64_t> l = internal::AsLong(v);
  if (!l.ok()) return l.status();
  return ToInt(*l);
}

// "origin: path 'a.b': problem", keeping the problem's status code.
absl::Status AtPath(const internal::Value& v, std::string_view path,
                    const absl::Status& problem) {
  absl::StatusCode code = v.is_unmergeable()
                              ? absl::StatusCode::kFailedPrecondition
                              : problem.code();
  return absl::Status(
      code, absl::StrCat(v.origin().ToString(), ": path '",
                         internal::Excerpt(path), "': ", problem.message()));
}

// The variables of this process, read when a config is resolved.
std::map<std::string, std::string> ProcessEnvironment() {
  std::map<std::string, std::string> vars;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    vars.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return vars;
}

}  // namespace

Config::Config() : root_(EmptyObject()) {}

Config::Config(std::shared_ptr<const internal::Value> root)
    : root_(std::move(root)) {}

absl::StatusOr<Config> Config::ParseString(std::string_view text,
                                           std::string_view origin,
                                           const ParseOptions& options) {
  absl::StatusOr<ValuePtr> root =
      internal::LoadText(text, std::string(origin), ToLoadOptions(options));
  if (!root.ok()) return root.status();
  return Config(*std::move(root));
}

absl::StatusOr<Config> Config::ParseFile(const std::string& path,
                                         const ParseOptions& options) {
  absl::StatusOr<ValuePtr> root =
      internal::LoadFile(path, ToLoadOptions(options));
  if (!root.ok()) return root.status();
  return Config(*std::move(root));
}

absl::StatusOr<Config> Config::Load(const Config& app) {
  Config merged = app;
  for (const auto& [module, text] : RegisteredReferenceConfs()) {
    absl::StatusOr<Config> reference =
        ParseString(text, absl::StrCat(module, "/reference.conf"));
    if (!reference.ok()) {
      return absl::Status(
          reference.status().code(),
          absl::StrCat("the reference.conf of module '", module,
                       "' does not parse: ", reference.status().message()));
    }
    merged = merged.WithFallback(*reference);
  }
  return merged.Resolve();
}

absl::StatusOr<Config> Config::Load() { return Load(Config()); }

Config Config::WithFallback(const Config& fallback) const {
  return Config(internal::Merge(fallback.root_, root_));
}

absl::StatusOr<Config> Config::Resolve(const ResolveOptions& options) const {
  if (IsResolved()) return *this;
  ValuePtr environment;
  if (options.use_environment) {
    environment = internal::EnvironmentObject(
        options.environment ? *options.environment : ProcessEnvironment());
  }
  absl::StatusOr<ValuePtr> resolved = internal::Resolve(root_, environment);
  if (!resolved.ok()) return resolved.status();
  return Config(*std::move(resolved));
}

bool Config::IsResolved() const { return root_->resolved(); }

bool Config::IsEmpty() const { return root_->fields().empty(); }

bool Config::HasPath(std::string_view path) const {
  return Find(path, /*allow_null=*/false).ok();
}

std::vector<std::string> Config::Keys() const { return Root().Keys(); }

ConfigValue Config::Root() const { return ConfigValue(root_); }

absl::StatusOr<ValuePtr> Config::Find(std::string_view path,
                                      bool allow_null) const {
  absl::StatusOr<std::vector<std::string>> keys =
      internal::ParsePathExpression(path);
  if (!keys.ok()) return keys.status();
  ValuePtr current = root_;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    if (current->is_unmergeable()) {
      return AtPath(*current, path,
                    absl::FailedPreconditionError(
                        "the config is not resolved; call Resolve()"));
    }
    ValuePtr next = current->is_object() ? current->Field((*keys)[i]) : nullptr;
    if (next == nullptr) {
      std::string why =
          current->is_object()
              ? absl::StrCat("no setting '", internal::Excerpt((*keys)[i]), "'")
              : absl::StrCat("'", internal::Excerpt((*keys)[i - 1]), "' is ",
                             internal::Describe(*current), ", not an object");
      return absl::NotFoundError(
          absl::StrCat(current->origin().ToString(), ": path '",
                       internal::Excerpt(path), "' is not set (", why, ")"));
    }
    current = std::move(next);
  }
  if (current->kind() == internal::Kind::kNull && !allow_null) {
    return absl::NotFoundError(absl::StrCat(current->origin().ToString(),
                                            ": path '", internal::Excerpt(path),
                                            "' is set to null"));
  }
  return current;
}

template <typename T, typename Convert>
absl::StatusOr<T> Config::Get(std::string_view path, Convert convert) const {
  absl::StatusOr<ValuePtr> v = Find(path, /*allow_null=*/false);
  if (!v.ok()) return v.status();
  absl::StatusOr<T> r = convert(**v);
  if (!r.ok()) return AtPath(**v, path, r.status());
  return r;
}

template <typename T, typename Convert>
absl::StatusOr<std::vector<T>> Config::GetListOf(std::string_view path,
                                                 Convert convert) const {
  absl::StatusOr<ValuePtr> v = Find(path, /*allow_null=*/false);
  if (!v.ok()) return v.status();
  absl::StatusOr<std::vector<ValuePtr>> items = internal::AsList(*v);
  if (!items.ok()) return AtPath(**v, path, items.status());
  std::vector<T> out;
  out.reserve(items->size());
  for (std::size_t i = 0; i < items->size(); ++i) {
    const internal::Value& item = *(*items)[i];
    absl::StatusOr<T> r = item.kind() == internal::Kind::kNull
                              ? absl::InvalidArgumentError("found null")
                              : convert(item);
    if (!r.ok()) {
      return AtPath(
          item, path,
          absl::Status(r.status().code(), absl::StrCat("element ", i, ": ",
                                                       r.status().message())));
    }
    out.push_back(*std::move(r));
  }
  return out;
}

template <typename T, typename Getter>
absl::StatusOr<T> Config::GetOr(std::string_view path, T fallback,
                                Getter getter) const {
  absl::StatusOr<T> r = (this->*getter)(path);
  if (absl::IsNotFound(r.status())) return fallback;
  return r;
}

absl::StatusOr<ConfigValue> Config::GetValue(std::string_view path) const {
  absl::StatusOr<ValuePtr> v = Find(path, /*allow_null=*/true);
  if (!v.ok()) return v.status();
  return ConfigValue(*std::move(v));
}

absl::StatusOr<ConfigValue> Config::GetObject(std::string_view path) const {
  absl::StatusOr<Config> c = GetConfig(path);
  if (!c.ok()) return c.status();
  return c->Root();
}

absl::StatusOr<std::vector<ConfigValue>> Config::GetList(
    std::string_view path) const {
  absl::StatusOr<ValuePtr> v = Find(path, /*allow_null=*/false);
  if (!v.ok()) return v.status();
  absl::StatusOr<std::vector<ValuePtr>> items = internal::AsList(*v);
  if (!items.ok()) return AtPath(**v, path, items.status());
  std::vector<ConfigValue> out;
  out.reserve(items->size());
  for (ValuePtr& item : *items) out.push_back(ConfigValue(std::move(item)));
  return out;
}

absl::StatusOr<Config> Config::GetConfig(std::string_view path) const {
  absl::StatusOr<ValuePtr> v = Find(path, /*allow_null=*/false);
  if (!v.ok()) return v.status();
  if (!(*v)->is_object()) {
    return AtPath(**v, path,
                  absl::InvalidArgumentError(absl::StrCat(
                      "expected an object, found ", internal::Describe(**v))));
  }
  return Config(*std::move(v));
}

absl::StatusOr<std::string> Config::GetString(std::string_view path) const {
  return Get<std::string>(path, internal::AsString);
}

absl::StatusOr<bool> Config::GetBool(std::string_view path) const {
  return Get<bool>(path, internal::AsBool);
}

absl::StatusOr<int> Config::GetInt(std::string_view path) const {
  return Get<int>(path, AsInt);
}

absl::StatusOr<int64_t> Config::GetLong(std::string_view path) const {
  return Get<int64_t>(path, internal::AsLong);
}

absl::StatusOr<double> Config::GetDouble(std::string_view path) const {
  return Get<double>(path, internal::AsDouble);
}

absl::StatusOr<absl::Duration> Config::GetDuration(
    std::string_view path) const {
  return Get<absl::Duration>(path, internal::AsDuration);
}

absl::StatusOr<int64_t> Config::GetBytes(std::string_view path) const {
  return Get<int64_t>(path, internal::AsBytes);
}

absl::StatusOr<std::vector<std::string>> Config::GetStringList(
    std::string_view path) const {
  return GetListOf<std::string>(path, internal::AsString);
}

absl::StatusOr<std::vector<bool>> Config::GetBoolList(
    std::string_view path) const {
  return GetListOf<bool>(path, internal::AsBool);
}

absl::StatusOr<std::vector<int>> Config::GetIntList(
    std::string_view path) const {
  return GetListOf<int>(path, AsInt);
}

absl::StatusOr<std::vector<int64_t>> Config::GetLongList(
    std::string_view path) const {
  return GetListOf<int64_t>(path, internal::AsLong);
}

absl::StatusOr<std::vector<double>> Config::GetDoubleList(
    std::string_view path) const {
  return GetListOf<double>(path, internal::AsDouble);
}

absl::StatusOr<std::vector<absl::Duration>> Config::GetDurationList(
    std::string_view path) const {
  return GetListOf<absl::Duration>(path, internal::AsDuration);
}

absl::StatusOr<std::vector<int64_t>> Config::GetBytesList(
    std::string_view path) const {
  return GetListOf<int64_t>(path, internal::AsBytes);
}

absl::StatusOr<std::vector<Config>> Config::GetConfigList(
    std::string_view path) const {
  absl::StatusOr<ValuePtr> v = Find(path, /*allow_null=*/false);
  if (!v.ok()) return v.status();
  absl::StatusOr<std::vector<ValuePtr>> items = internal::AsList(*v);
  if (!items.ok()) return AtPath(**v, path, items.status());
  std::vector<Config> out;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const ValuePtr& item = (*items)[i];
    if (!item->is_object()) {
      return AtPath(*item, path,
                    absl::InvalidArgumentError(absl::StrCat(
                        "element ", i, ": expected an object, found ",
                        internal::Describe(*item))));
    }
    out.push_back(Config(item));
  }
  return out;
}

absl::StatusOr<std::string> Config::GetStringOr(
    std::string_view path, std::string_view fallback) const {
  return GetOr<std::string>(path, std::string(fallback), &Config::GetString);
}

absl::StatusOr<bool> Config::GetBoolOr(std::string_view path,
                                       bool fallback) const {
  return GetOr<bool>(path, fallback, &Config::GetBool);
}

absl::StatusOr<int> Config::GetIntOr(std::string_view path,
                                     int fallback) const {
  return GetOr<int>(path, fallback, &Config::GetInt);
}

absl::StatusOr<int64_t> Config::GetLongOr(std::string_view path,
                                          int64_t fallback) const {
  return GetOr<int64_t>(path, fallback, &Config::GetLong);
}

absl::StatusOr<double> Config::GetDoubleOr(std::string_view path,
                                           double fallback) const {
  return GetOr<double>(path, fallback, &Config::GetDouble);
}

absl::StatusOr<absl::Duration> Config::GetDurationOr(
    std::string_view path, absl::Duration fallback) const {
  return GetOr<absl::Duration>(path, fallback, &Config::GetDuration);
}

absl::StatusOr<int64_t> Config::GetBytesOr(std::string_view path,
                                           int64_t fallback) const {
  return GetOr<int64_t>(path, fallback, &Config::GetBytes);
}

std::string Config::ToJson(JsonFormat format) const {
  return internal::RenderJson(*root_, format == JsonFormat::kPretty);
}

absl::StatusOr<std::string> Config::ValueToJson(std::string_view path,
                                                JsonFormat format) const {
  absl::StatusOr<ValuePtr> v = Find(path, /*allow_null=*/true);
  if (!v.ok()) return v.status();
  return internal::RenderJson(**v, format == JsonFormat::kPretty);
}

}  // namespace cairn::hocon
