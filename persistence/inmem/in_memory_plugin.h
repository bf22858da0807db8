#ifndef CAIRN_PERSISTENCE_INMEM_IN_MEMORY_PLUGIN_H_
#define CAIRN_PERSISTENCE_INMEM_IN_MEMORY_PLUGIN_H_

#include <memory>

#include "absl/status/status.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence {

// Plugins that keep everything in memory, for tests: the same semantics as
// the RocksDB plugins (events, snapshots and states are serialized through
// `registry`, so rejections and decoding behave the same), gone with the
// object. Each runs its operations and callbacks on one thread of its own.
// `registry` must not be null.
std::unique_ptr<Journal> NewInMemoryJournal(
    std::shared_ptr<const serialization::SerializationRegistry> registry);
std::unique_ptr<SnapshotStore> NewInMemorySnapshotStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry);
std::unique_ptr<DurableStateStore> NewInMemoryDurableStateStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry);

// Registers kInMemoryJournalPluginId, kInMemorySnapshotStorePluginId and
// kInMemoryDurableStateStorePluginId.
// Each Create makes a new, empty store. AlreadyExists if registered before.
[[nodiscard]] absl::Status RegisterInMemoryPlugins(PluginRegistry& registry);

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_INMEM_IN_MEMORY_PLUGIN_H_
