#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_REGISTRY_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence {

// Plugin ids, as Akka names plugins: the path of the plugin's config block.
inline constexpr char kRocksDbJournalPluginId[] =
    "akka.persistence.journal.rocksdb";
inline constexpr char kRocksDbSnapshotStorePluginId[] =
    "akka.persistence.snapshot-store.rocksdb";
inline constexpr char kInMemoryJournalPluginId[] =
    "akka.persistence.journal.inmem";
inline constexpr char kInMemorySnapshotStorePluginId[] =
    "akka.persistence.snapshot-store.inmem";
inline constexpr char kInMemoryDurableStateStorePluginId[] =
    "akka.persistence.state.inmem";

// What a plugin factory is given besides its own settings (which it
// captured when registered).
struct PluginContext {
  // Never null.
  std::shared_ptr<const serialization::SerializationRegistry> serialization;
};

// Journal, snapshot store and durable state store factories by plugin id. A
// plugin's own settings are bound when it is registered (RegisterRocksDbPlugins
// in persistence/rocksdb/rocksdb_plugin.h takes a RocksDbOptions;
// RegisterInMemoryPlugins is in persistence/inmem/in_memory_plugin.h), so
// selecting a plugin is a lookup by id.
//
// Thread safety: register from one thread before anything creates; Create*
// may then be called from any thread.
class PluginRegistry {
 public:
  using JournalFactory = std::function<absl::StatusOr<std::unique_ptr<Journal>>(
      const PluginContext&)>;
  using SnapshotStoreFactory =
      std::function<absl::StatusOr<std::unique_ptr<SnapshotStore>>(
          const PluginContext&)>;
  using DurableStateStoreFactory =
      std::function<absl::StatusOr<std::unique_ptr<DurableStateStore>>(
          const PluginContext&)>;

  // AlreadyExists if the id is taken; InvalidArgument for an empty id or
  // factory.
  [[nodiscard]] absl::Status RegisterJournal(std::string plugin_id,
                                             JournalFactory factory);
  [[nodiscard]] absl::Status RegisterSnapshotStore(
      std::string plugin_id, SnapshotStoreFactory factory);
  [[nodiscard]] absl::Status RegisterDurableStateStore(
      std::string plugin_id, DurableStateStoreFactory factory);

  // OK if a plugin of that id is registered, else NotFound listing the ids
  // that are.
  [[nodiscard]] absl::Status FindJournal(std::string_view plugin_id) const;
  [[nodiscard]] absl::Status FindSnapshotStore(
      std::string_view plugin_id) const;
  [[nodiscard]] absl::Status FindDurableStateStore(
      std::string_view plugin_id) const;

  // NotFound (as Find*) for an unknown id; InvalidArgument if
  // context.serialization is null; otherwise what the factory returns.
  [[nodiscard]] absl::StatusOr<std::unique_ptr<Journal>> CreateJournal(
      std::string_view plugin_id, const PluginContext& context) const;
  [[nodiscard]] absl::StatusOr<std::unique_ptr<SnapshotStore>>
  CreateSnapshotStore(std::string_view plugin_id,
                      const PluginContext& context) const;
  [[nodiscard]] absl::StatusOr<std::unique_ptr<DurableStateStore>>
  CreateDurableStateStore(std::string_view plugin_id,
                          const PluginContext& context) const;

 private:
  absl::btree_map<std::string, JournalFactory, std::less<>> journals_;
  absl::btree_map<std::string, SnapshotStoreFactory, std::less<>>
      snapshot_stores_;
  absl::btree_map<std::string, DurableStateStoreFactory, std::less<>>
      durable_state_stores_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_REGISTRY_H_
