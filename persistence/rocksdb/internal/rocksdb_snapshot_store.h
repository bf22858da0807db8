#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_SNAPSHOT_STORE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_SNAPSHOT_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/task_runner.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The RocksDB snapshot store (see snapshot_store.h for the contract), in
// the snapshots column family. Snapshots are serialized on the calling
// thread; every operation then runs, and calls back, on the store's one
// thread, in submission order.
class RocksDbSnapshotStore final : public SnapshotStore {
 public:
  RocksDbSnapshotStore(
      std::shared_ptr<Db> db,
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~RocksDbSnapshotStore() override;

  void AsyncLoad(std::string persistence_id, SnapshotSelectionCriteria criteria,
                 int64_t to_sequence_nr, LoadCallback done) override;
  void AsyncSave(SnapshotMetadata metadata, serialization::Payload snapshot,
                 std::optional<WriteFence> fence, DoneCallback done) override;
  void AsyncDelete(SnapshotMetadata metadata, std::optional<WriteFence> fence,
                   DoneCallback done) override;
  void AsyncDeleteByCriteria(std::string persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override;
  // The database: a RocksDbJournal on it loads a recovery's snapshot
  // itself, when no save or delete of the stream is in flight
  // (snapshot_writes.h).
  const void* ColocationKey() const override { return db_.get(); }

 private:
  // `done` for a save or delete of `persistence_id`, counted in flight
  // from now until it is applied.
  DoneCallback InFlight(const std::string& persistence_id, DoneCallback done);

  const std::shared_ptr<Db> db_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  base::TaskRunner runner_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_SNAPSHOT_STORE_H_
