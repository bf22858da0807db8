#ifndef CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_PLUGIN_H_
#define CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_PLUGIN_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence {

// The RocksDB durable state store's plugin id. Here rather than with the
// other ids in plugin_registry.h, which this plugin does not own.
inline constexpr char kRocksDbDurableStateStorePluginId[] =
    "akka.persistence.state.rocksdb";

namespace rocksdb_internal {
class Db;
}  // namespace rocksdb_internal

// An open RocksDB database holding a journal, a snapshot store and a
// durable state store (column families `events`, `snapshots`, `metadata`,
// `state` and more; see docs/PERSISTENCE_STORAGE.md for the layout).
//
// A RocksDbStore is a cheap, copyable handle. The database stays open while
// a handle, or a journal or snapshot store made from one, exists. A
// directory can be open once per process (RocksDB locks it): share the
// handle rather than opening the path twice.
//
// options.mode chooses how: read-write (the default), read-only, or as a
// secondary instance following a primary in another process (RocksDbMode).
// The journal and snapshot stores of a read-only or secondary store replay,
// read highest sequence numbers and load snapshots as usual; every write,
// delete and snapshot save fails with FailedPrecondition naming the store
// and its mode (a persistent actor gets OnPersistFailure), and nothing is
// written. Neither changes any file in the store's directory.
//
// Thread safety: every method may be called from any thread.
class RocksDbStore {
 public:
  // Opens the database at options.path as options.mode says (creating it
  // if missing and options.create_if_missing, in mode read-write only).
  // NotFound if it is missing and not created, or (read-only, secondary)
  // is not a cairn store; DataLoss if its write-ahead logs are damaged
  // (naming the log file and offset; nothing on disk changed);
  // ResourceExhausted if the disk is full; Unavailable if it cannot be opened
  // (I/O error, locked by another process or by another RocksDbStore of this
  // one); FailedPrecondition if it was written with an incompatible layout, or
  // is a RocksDB database of another program (which is left unchanged);
  // InvalidArgument for bad options (a secondary without a secondary_path, or
  // with one inside the store).
  [[nodiscard]] static absl::StatusOr<RocksDbStore> Open(
      const RocksDbOptions& options);

  // The journal on this database. At most one journal exists per database
  // at a time, because its writer thread is what orders writes and deletes:
  // FailedPrecondition while another one exists. `registry` must not be
  // null. In mode read-write it first makes the store's id log if it has
  // none (a store of an older build: one pass over its ids, docs/QUERIES.md);
  // that read or write failing fails the call with its error.
  [[nodiscard]] absl::StatusOr<std::unique_ptr<Journal>> NewJournal(
      std::shared_ptr<const serialization::SerializationRegistry> registry)
      const;

  // Mode secondary: makes what the primary has written since the open or
  // the last catch-up visible to the reads submitted after this returns
  // (RocksDB's TryCatchUpWithPrimary). FailedPrecondition in the other
  // modes; the RocksDB error's code (e.g. Unavailable for an I/O error)
  // if it fails, after which reads go on seeing the state before.
  [[nodiscard]] absl::Status CatchUpWithPrimary() const;

  // A snapshot store on this database (any number may exist). `registry`
  // must not be null.
  [[nodiscard]] std::unique_ptr<SnapshotStore> NewSnapshotStore(
      std::shared_ptr<const serialization::SerializationRegistry> registry)
      const;

  // A durable state store on this database (any number may exist; their
  // writes to the database are serialized with each other, so revisions
  // and offsets stay consistent). `registry` must not be null. In mode
  // read-only or secondary every write fails with FailedPrecondition
  // naming the store and its mode.
  [[nodiscard]] std::unique_ptr<DurableStateStore> NewDurableStateStore(
      std::shared_ptr<const serialization::SerializationRegistry> registry)
      const;

 private:
  friend absl::Status RegisterRocksDbPlugins(PluginRegistry& registry,
                                             RocksDbOptions options);
  explicit RocksDbStore(std::shared_ptr<rocksdb_internal::Db> db);

  std::shared_ptr<rocksdb_internal::Db> db_;
};

// Registers kRocksDbJournalPluginId, kRocksDbSnapshotStorePluginId and
// kRocksDbDurableStateStorePluginId on the database at options.path. The
// first Create opens the database (and returns Open's error if that
// fails); the journal, snapshot stores and durable state stores created
// while it is open share it; it closes when the last of them is destroyed,
// and the next Create opens it again. AlreadyExists if the ids are
// registered already.
[[nodiscard]] absl::Status RegisterRocksDbPlugins(PluginRegistry& registry,
                                                  RocksDbOptions options);

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_PLUGIN_H_
