#include "persistence/rocksdb/internal/rocksdb_durable_state_store.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/clock.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/state_reads.h"
#include "persistence/rocksdb/internal/state_writes.h"
#include "persistence/storage/plugin_support/durable_state_check.h"

namespace cairn::persistence::rocksdb_internal {

namespace {

// The state write lock of `db`, shared by every durable state store on it.
// Kept here rather than in Db, which the journal and snapshot store share
// and which need not know of durable state. An entry lives while a store
// holds it, and every such store holds its Db too, so a live entry's
// address is never that of another Db.
std::shared_ptr<base::Mutex> StateWriteLock(const Db* db) {
  static base::Mutex* const mu = new base::Mutex;
  static auto* const locks =
      new absl::flat_hash_map<const Db*, std::weak_ptr<base::Mutex>>;
  base::MutexLock lock(mu);
  absl::erase_if(*locks,
                 [](const auto& entry) { return entry.second.expired(); });
  std::weak_ptr<base::Mutex>& entry = (*locks)[db];
  std::shared_ptr<base::Mutex> shared = entry.lock();
  if (shared == nullptr) {
    shared = std::make_shared<base::Mutex>();
    entry = shared;
  }
  return shared;
}

// A payload and its manifest and tag: what an upsert writes takes about
// that much room in the batch.
constexpr size_t kBatchOverheadBytes = 128;

}  // namespace

RocksDbDurableStateStore::RocksDbDurableStateStore(
    std::shared_ptr<Db> db,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : db_(std::move(db)),
      registry_(std::move(registry)),
      writes_(StateWriteLock(db_.get())),
      runner_(1, "cairn-state") {}

RocksDbDurableStateStore::~RocksDbDurableStateStore() = default;

void RocksDbDurableStateStore::AsyncGetObject(std::string persistence_id,
                                              GetCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id),
                done = std::move(done)]() mutable {
    absl::StatusOr<DurableStateObject> object;
    absl::Status status = db_->Read([&](const Db::View& view) {
      object = ReadDurableState(view, *registry_, persistence_id);
      return object.status();
    });
    // A status of its own for the callback (base/status_copy.h).
    std::move(done)(status.ok() ? std::move(object)
                                : absl::StatusOr<DurableStateObject>(
                                      base::OwnCopy(status)));
  });
}

// Fences are ignored here: one process's store (durable_state_store.h).
void RocksDbDurableStateStore::AsyncUpsertObject(
    std::string persistence_id, int64_t revision, serialization::Payload value,
    std::string tag, std::optional<WriteFence> /*fence*/, DoneCallback done) {
  absl::StatusOr<serialization::SerializedPayload> bytes =
      registry_->Serialize(value);
  runner_.Post([this, persistence_id = std::move(persistence_id), revision,
                bytes = std::move(bytes), tag = std::move(tag),
                done = std::move(done)]() mutable {
    if (absl::Status s =
            plugin_support::CheckStateUpsert(persistence_id, revision, bytes);
        !s.ok()) {
      std::move(done)(std::move(s));
      return;
    }
    const int64_t now = absl::ToUnixMillis(absl::Now());
    absl::Status written;
    {
      base::MutexLock lock(writes_.get());
      written = db_->Write(
          [&](const Db::View& view, rocksdb::WriteBatch& batch) {
            return BuildStateUpsert(view, batch, persistence_id, revision,
                                    *bytes, tag, now);
          },
          kBatchOverheadBytes + persistence_id.size() * 2 + tag.size() * 2 +
              bytes->manifest.size() + bytes->bytes.size());
    }
    std::move(done)(std::move(written));
  });
}

void RocksDbDurableStateStore::AsyncDeleteObject(
    std::string persistence_id, int64_t revision,
    std::optional<WriteFence> /*fence*/, DoneCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id), revision,
                done = std::move(done)]() mutable {
    const int64_t now = absl::ToUnixMillis(absl::Now());
    absl::Status written;
    {
      base::MutexLock lock(writes_.get());
      written =
          db_->Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
            return BuildStateDelete(view, batch, persistence_id, revision, now);
          });
    }
    std::move(done)(std::move(written));
  });
}

void RocksDbDurableStateStore::AsyncCurrentChanges(std::string tag,
                                                   int64_t after_offset,
                                                   int64_t max,
                                                   ChangesCallback done) {
  runner_.Post([this, tag = std::move(tag), after_offset, max,
                done = std::move(done)]() mutable {
    std::vector<DurableStateChange> changes;
    absl::Status status = db_->Read([&](const Db::View& view) {
      return ReadStateChanges(view, *registry_, tag, after_offset, max,
                              changes);
    });
    if (!status.ok()) {
      std::move(done)(base::OwnCopy(status));
      return;
    }
    std::move(done)(std::move(changes));
  });
}

}  // namespace cairn::persistence::rocksdb_internal
