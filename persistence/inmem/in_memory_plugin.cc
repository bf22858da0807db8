#include "persistence/inmem/in_memory_plugin.h"

#include <utility>

#include "persistence/inmem/internal/in_memory_durable_state_store.h"
#include "persistence/inmem/internal/in_memory_journal.h"
#include "persistence/inmem/internal/in_memory_snapshot_store.h"

namespace cairn::persistence {

std::unique_ptr<Journal> NewInMemoryJournal(
    std::shared_ptr<const serialization::SerializationRegistry> registry) {
  return std::make_unique<inmem_internal::InMemoryJournal>(std::move(registry));
}

std::unique_ptr<SnapshotStore> NewInMemorySnapshotStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry) {
  return std::make_unique<inmem_internal::InMemorySnapshotStore>(
      std::move(registry));
}

std::unique_ptr<DurableStateStore> NewInMemoryDurableStateStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry) {
  return std::make_unique<inmem_internal::InMemoryDurableStateStore>(
      std::move(registry));
}

absl::Status RegisterInMemoryPlugins(PluginRegistry& registry) {
  absl::Status journal = registry.RegisterJournal(
      kInMemoryJournalPluginId,
      [](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<Journal>> {
        return NewInMemoryJournal(context.serialization);
      });
  if (!journal.ok()) return journal;
  absl::Status snapshots = registry.RegisterSnapshotStore(
      kInMemorySnapshotStorePluginId,
      [](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        return NewInMemorySnapshotStore(context.serialization);
      });
  if (!snapshots.ok()) return snapshots;
  return registry.RegisterDurableStateStore(
      kInMemoryDurableStateStorePluginId,
      [](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<DurableStateStore>> {
        return NewInMemoryDurableStateStore(context.serialization);
      });
}

}  // namespace cairn::persistence
