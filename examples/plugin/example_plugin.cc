#include "examples/plugin/example_plugin.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "examples/plugin/example_snapshot_store.h"

namespace cairn::examples::plugin {

using persistence::Journal;
using persistence::PluginContext;
using persistence::SnapshotStore;

absl::StatusOr<ExampleJournalSettings> ExampleJournalSettingsFromConfig(
    const hocon::Config& config) {
  const std::string key = absl::StrCat(kExampleJournalPluginId, ".max-events");
  // The error of a missing key or a wrong type names the key and where the
  // value was written.
  absl::StatusOr<int64_t> max_events = config.GetLong(key);
  if (!max_events.ok()) return max_events.status();
  if (*max_events < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, " = ", *max_events, ": must be at least 1"));
  }
  ExampleJournalSettings settings;
  settings.max_events = *max_events;
  return settings;
}

absl::Status RegisterExamplePlugins(persistence::PluginRegistry& registry,
                                    const persistence::PluginSetup& setup) {
  // Read now, while setup.config is valid; the factories keep a copy.
  absl::StatusOr<ExampleJournalSettings> settings =
      ExampleJournalSettingsFromConfig(setup.config);
  if (!settings.ok()) return settings.status();
  absl::Status journal = registry.RegisterJournal(
      kExampleJournalPluginId,
      [settings = *settings](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<Journal>> {
        return std::make_unique<ExampleJournal>(context.serialization,
                                                settings);
      });
  if (!journal.ok()) return journal;
  return registry.RegisterSnapshotStore(
      kExampleSnapshotStorePluginId,
      [](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        return std::make_unique<ExampleSnapshotStore>(context.serialization);
      });
}

}  // namespace cairn::examples::plugin
