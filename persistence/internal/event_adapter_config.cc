#include "persistence/internal/event_adapter_config.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace cairn::persistence::internal {
namespace {

absl::Status ConfigError(const hocon::ConfigValue& where, std::string_view path,
                         std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(path), " (", where.Origin(), "): ", std::string(what)));
}

// The aliases of `event-adapters`, resolved to the registered adapters.
absl::StatusOr<std::map<std::string, std::shared_ptr<const EventAdapter>>>
Aliases(const hocon::Config& config, const std::string& block,
        const NamedEventAdapters& named) {
  std::map<std::string, std::shared_ptr<const EventAdapter>> aliases;
  const std::string path = block + ".event-adapters";
  if (!config.HasPath(path)) return aliases;
  absl::StatusOr<hocon::ConfigValue> object = config.GetObject(path);
  if (!object.ok()) return object.status();
  for (const std::string& alias : object->Keys()) {
    const hocon::ConfigValue value = *object->Get(alias);
    const std::string key = absl::StrCat(path, ".\"", alias, "\"");
    absl::StatusOr<std::string> name = value.AsString();
    if (!name.ok()) {
      return ConfigError(value, key, "must be the name of an event adapter");
    }
    auto it = named.find(*name);
    if (it == named.end()) {
      std::string known;
      for (const auto& entry : named) {
        absl::StrAppend(&known, known.empty() ? "" : ", ", entry.first);
      }
      return ConfigError(
          value, key,
          absl::StrCat("no event adapter is registered as '", *name,
                       "' (PersistenceSetup::event_adapters has: ",
                       known.empty() ? "none" : known, ")"));
    }
    aliases.emplace(alias, it->second);
  }
  return aliases;
}

// The one alias a binding names: a string, or a list of one string.
absl::StatusOr<std::string> BoundAlias(const hocon::ConfigValue& value,
                                       std::string_view key) {
  if (value.type() != hocon::ValueType::kList) {
    absl::StatusOr<std::string> alias = value.AsString();
    if (alias.ok()) return alias;
    return ConfigError(value, key, "must name an adapter of event-adapters");
  }
  absl::StatusOr<std::vector<hocon::ConfigValue>> list = value.AsList();
  if (!list.ok()) return list.status();
  if (list->size() != 1) {
    return ConfigError(value, key,
                       "must name one adapter (cairn binds one adapter per "
                       "type; write one adapter that does both)");
  }
  absl::StatusOr<std::string> alias = list->front().AsString();
  if (alias.ok()) return alias;
  return ConfigError(value, key, "must name an adapter of event-adapters");
}

}  // namespace

absl::StatusOr<std::shared_ptr<const EventAdapters>> EventAdaptersOfPlugin(
    const hocon::Config& config, std::string_view plugin_id,
    const NamedEventAdapters& named,
    const serialization::SerializationRegistry& serialization,
    const EventAdapterBinder& bind) {
  const std::string block(plugin_id);
  absl::StatusOr<std::map<std::string, std::shared_ptr<const EventAdapter>>>
      aliases = Aliases(config, block, named);
  if (!aliases.ok()) return aliases.status();
  auto adapters = std::make_shared<EventAdapters>();
  const std::string path = block + ".event-adapter-bindings";
  if (config.HasPath(path)) {
    absl::StatusOr<hocon::ConfigValue> object = config.GetObject(path);
    if (!object.ok()) return object.status();
    for (const std::string& manifest : object->Keys()) {
      const hocon::ConfigValue value = *object->Get(manifest);
      const std::string key = absl::StrCat(path, ".\"", manifest, "\"");
      absl::StatusOr<std::string> alias = BoundAlias(value, key);
      if (!alias.ok()) return alias.status();
      auto adapter = aliases->find(*alias);
      if (adapter == aliases->end()) {
        return ConfigError(value, key,
                           absl::StrCat("'", *alias, "' is not in ", block,
                                        ".event-adapters"));
      }
      absl::StatusOr<std::type_index> type =
          serialization.TypeWithManifest(manifest);
      if (!type.ok()) {
        return ConfigError(value, key,
                           absl::StrCat("the key names no event type: ",
                                        type.status().message()));
      }
      if (absl::Status s = adapters->BindType(*type, adapter->second);
          !s.ok()) {
        return ConfigError(value, key, std::string(s.message()));
      }
    }
  }
  if (bind) {
    if (absl::Status s = bind(plugin_id, *adapters); !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("binding event adapters of ", block,
                                       " in code: ", s.message()));
    }
  }
  if (adapters->empty()) return std::shared_ptr<const EventAdapters>();
  return std::shared_ptr<const EventAdapters>(std::move(adapters));
}

}  // namespace cairn::persistence::internal
