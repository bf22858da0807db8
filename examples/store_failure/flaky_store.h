#ifndef CAIRN_EXAMPLES_STORE_FAILURE_FLAKY_STORE_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_FLAKY_STORE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/fault_injecting_journal.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::examples::store_failure {

// The plugin ids the store is registered under; the actor system's config
// selects them (akka.persistence.journal.plugin and
// akka.persistence.snapshot-store.plugin).
inline constexpr char kJournalPluginId[] = "store-failure.journal";
inline constexpr char kSnapshotStorePluginId[] = "store-failure.snapshot-store";

// A real RocksDB journal and snapshot store that can be taken down and
// brought back on command: the journal is the RocksDB one wrapped in a
// FaultInjectingJournal. While the store is down every write and every
// replay fails (Unavailable), as when a database server goes away, and
// nothing is stored; what was stored before is all there when it comes
// back. (The snapshot store stays up: the counters take no snapshots.)
//
// Thread safety: every method from any thread. GoDown and ComeBack apply
// to the journal persistence makes from the plugin, and to operations
// submitted after the call; call them only while the actor system that
// owns that journal lives.
class FlakyStore : public std::enable_shared_from_this<FlakyStore> {
 public:
  // Opens (creating it if missing) the RocksDB database in `dir`.
  // Returns RocksDbStore::Open's error.
  [[nodiscard]] static absl::StatusOr<std::shared_ptr<FlakyStore>> Open(
      const std::string& dir);

  // Registers the journal and snapshot store under kJournalPluginId and
  // kSnapshotStorePluginId, for PersistenceSetup::register_plugins. The
  // registered factories keep this store alive.
  [[nodiscard]] absl::Status RegisterPlugins(
      persistence::PluginRegistry& plugins);

  // Writes and replays fail from now on.
  void GoDown();
  // Writes and replays work again.
  void ComeBack();

 private:
  explicit FlakyStore(persistence::RocksDbStore db) : db_(std::move(db)) {}

  // Made by the journal factory; `journal` is owned by persistence.
  void Attach(persistence::FaultInjectingJournal* journal);
  void Apply() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const persistence::RocksDbStore db_;
  base::Mutex mu_;
  bool down_ ABSL_GUARDED_BY(mu_) = false;
  persistence::FaultInjectingJournal* journal_ ABSL_GUARDED_BY(mu_) = nullptr;
};

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_FLAKY_STORE_H_
