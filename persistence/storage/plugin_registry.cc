#include "persistence/storage/plugin_registry.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "base/string_view.h"

namespace cairn::persistence {
namespace {

template <typename Map>
absl::Status Register(Map& factories, std::string_view kind,
                      std::string plugin_id,
                      typename Map::mapped_type factory) {
  if (plugin_id.empty() || !factory) {
    return absl::InvalidArgumentError(
        base::StrCat("a ", kind, " plugin needs an id and a factory"));
  }
  if (factories.contains(plugin_id)) {
    return absl::AlreadyExistsError(
        base::StrCat(kind, " plugin '", plugin_id, "' is already registered"));
  }
  factories.emplace(std::move(plugin_id), std::move(factory));
  return absl::OkStatus();
}

template <typename Map>
absl::Status Find(const Map& factories, std::string_view kind,
                  std::string_view plugin_id) {
  if (factories.contains(plugin_id)) return absl::OkStatus();
  std::vector<std::string> known;
  for (const auto& [id, factory] : factories) known.push_back(id);
  return absl::NotFoundError(
      base::StrCat("no ", kind, " plugin '", plugin_id, "' (registered: ",
                   known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
}

template <typename Map>
auto Create(const Map& factories, std::string_view kind,
            std::string_view plugin_id, const PluginContext& context)
    -> decltype(factories.begin()->second(context)) {
  if (context.serialization == nullptr) {
    return absl::InvalidArgumentError(base::StrCat(
        "creating ", kind, " plugin '", plugin_id, "': no serialization"));
  }
  if (absl::Status found = Find(factories, kind, plugin_id); !found.ok()) {
    return found;
  }
  return factories.find(plugin_id)->second(context);
}

}  // namespace

absl::Status PluginRegistry::RegisterJournal(std::string plugin_id,
                                             JournalFactory factory) {
  return Register(journals_, "journal", std::move(plugin_id),
                  std::move(factory));
}

absl::Status PluginRegistry::RegisterSnapshotStore(
    std::string plugin_id, SnapshotStoreFactory factory) {
  return Register(snapshot_stores_, "snapshot store", std::move(plugin_id),
                  std::move(factory));
}

absl::Status PluginRegistry::RegisterDurableStateStore(
    std::string plugin_id, DurableStateStoreFactory factory) {
  return Register(durable_state_stores_, "durable state store",
                  std::move(plugin_id), std::move(factory));
}

absl::Status PluginRegistry::FindJournal(std::string_view plugin_id) const {
  return Find(journals_, "journal", plugin_id);
}

absl::Status PluginRegistry::FindSnapshotStore(
    std::string_view plugin_id) const {
  return Find(snapshot_stores_, "snapshot store", plugin_id);
}

absl::Status PluginRegistry::FindDurableStateStore(
    std::string_view plugin_id) const {
  return Find(durable_state_stores_, "durable state store", plugin_id);
}

absl::StatusOr<std::unique_ptr<Journal>> PluginRegistry::CreateJournal(
    std::string_view plugin_id, const PluginContext& context) const {
  return Create(journals_, "journal", plugin_id, context);
}

absl::StatusOr<std::unique_ptr<SnapshotStore>>
PluginRegistry::CreateSnapshotStore(std::string_view plugin_id,
                                    const PluginContext& context) const {
  return Create(snapshot_stores_, "snapshot store", plugin_id, context);
}

absl::StatusOr<std::unique_ptr<DurableStateStore>>
PluginRegistry::CreateDurableStateStore(std::string_view plugin_id,
                                        const PluginContext& context) const {
  return Create(durable_state_stores_, "durable state store", plugin_id,
                context);
}

}  // namespace cairn::persistence
