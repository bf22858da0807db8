#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_DURABLE_STATE_STORE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_DURABLE_STATE_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/mutex.h"
#include "base/task_runner.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/durable_state_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The RocksDB durable state store (see durable_state_store.h for the
// contract; the in-memory store, inmem's in_memory_durable_state_store.h,
// is the reference its semantics and messages follow). It lives in the
// journal's database, as the snapshot store does, in two column families
// of its own: `state` (a checksummed record per id) and `state-tags` (the
// tag index and the highest offset given); state_codec.h has the layout.
//
// Choices:
//  - Values are serialized on the calling thread (a value that cannot be
//    is refused without touching the store); everything else, the
//    callbacks included, runs on the store's one thread, in submission
//    order, so the calls on one id are applied and completed in order.
//  - Reads run on that thread too: simplest, and a read submitted after a
//    write sees it.
//  - A write reads the id's record, checks the revision, and commits the
//    record, its index entry (the old one deleted in the same WriteBatch;
//    a delete's is a tombstone under the value's tag, which CurrentChanges
//    reports) and the highest offset in one batch, holding a lock of the
//    database's (one per Db, shared by every durable state store made on it),
//    so check-then-write is atomic and offsets are unique even with several
//    store objects on one database. Callbacks run after the lock is let go.
//  - Offsets come from the highest offset stored in `state-tags`, read in
//    each write under that lock rather than kept in memory: nothing to
//    restore at open, nothing to go stale after a failed write (whose
//    batch may or may not have landed) and a reopen; it is one point read
//    of a hot key. It is stored, not taken from the highest index entry,
//    so that an offset whose entry was replaced is never handed out again.
//  - Durability is the journal's: Db::Write syncs when options.fsync.
//  - A read-only or secondary open refuses writes (Db::Write's
//    FailedPrecondition naming the store and mode); on an older store
//    without the state families it reads every id as never written.
//  - Fences are ignored: one process's store (durable_state_store.h).
class RocksDbDurableStateStore final : public DurableStateStore {
 public:
  RocksDbDurableStateStore(
      std::shared_ptr<Db> db,
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~RocksDbDurableStateStore() override;

  void AsyncGetObject(std::string persistence_id, GetCallback done) override;
  void AsyncUpsertObject(std::string persistence_id, int64_t revision,
                         serialization::Payload value, std::string tag,
                         std::optional<WriteFence> fence,
                         DoneCallback done) override;
  void AsyncDeleteObject(std::string persistence_id, int64_t revision,
                         std::optional<WriteFence> fence,
                         DoneCallback done) override;
  void AsyncCurrentChanges(std::string tag, int64_t after_offset, int64_t max,
                           ChangesCallback done) override;

 private:
  const std::shared_ptr<Db> db_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  // The database's state write lock (see above).
  const std::shared_ptr<base::Mutex> writes_;
  // Declared last so that it is destroyed first, while the rest lives.
  base::TaskRunner runner_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_DURABLE_STATE_STORE_H_
