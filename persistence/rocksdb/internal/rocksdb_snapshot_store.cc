#include "persistence/rocksdb/internal/rocksdb_snapshot_store.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/snapshot_codec.h"
#include "persistence/rocksdb/internal/snapshot_reads.h"
#include "persistence/storage/plugin_support/record_check.h"
#include "rocksdb/iterator.h"

namespace cairn::persistence::rocksdb_internal {
RocksDbSnapshotStore::RocksDbSnapshotStore(
    std::shared_ptr<Db> db,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : db_(std::move(db)),
      registry_(std::move(registry)),
      runner_(1, "cairn-snapshots") {}

RocksDbSnapshotStore::~RocksDbSnapshotStore() = default;

void RocksDbSnapshotStore::AsyncLoad(std::string persistence_id,
                                     SnapshotSelectionCriteria criteria,
                                     int64_t to_sequence_nr,
                                     LoadCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id), criteria,
                to_sequence_nr, done = std::move(done)]() mutable {
    absl::StatusOr<LoadSnapshotResult> result;
    absl::Status status = db_->Read([&](const Db::View& view) {
      result = LoadSnapshot(view, /*shared=*/nullptr, *registry_,
                            persistence_id, criteria, to_sequence_nr);
      return result.status();
    });
    // A status of its own for the callback's thread.
    std::move(done)(status.ok() ? std::move(result)
                                : absl::StatusOr<LoadSnapshotResult>(
                                      base::OwnCopy(status)));
  });
}

SnapshotStore::DoneCallback RocksDbSnapshotStore::InFlight(
    const std::string& persistence_id, DoneCallback done) {
  db_->snapshot_writes().Begin(persistence_id);
  return [db = db_, persistence_id,
          done = std::move(done)](absl::Status status) mutable {
    db->snapshot_writes().End(persistence_id);
    std::move(done)(std::move(status));
  };
}

// Fences are ignored here: one process's store (snapshot_store.h).
void RocksDbSnapshotStore::AsyncSave(SnapshotMetadata metadata,
                                     serialization::Payload snapshot,
                                     std::optional<WriteFence> /*fence*/,
                                     DoneCallback done) {
  absl::StatusOr<serialization::SerializedPayload> payload =
      registry_->Serialize(snapshot);
  done = InFlight(metadata.persistence_id, std::move(done));
  runner_.Post([this, metadata = std::move(metadata),
                payload = std::move(payload),
                done = std::move(done)]() mutable {
    if (!payload.ok()) {
      std::move(done)(Unserializable(metadata, payload.status()));
      return;
    }
    if (metadata.persistence_id.empty() || metadata.sequence_nr < 0) {
      std::move(done)(absl::InvalidArgumentError(base::StrCat(
          "snapshot of persistence id '", metadata.persistence_id,
          "', sequence nr ", metadata.sequence_nr,
          ": needs a persistence id and a sequence number of 0 or more")));
      return;
    }
    flatbuffers::DetachedBuffer value = EncodeSnapshot(metadata, *payload);
    std::move(
        done)(db_->Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
      return FromRocksDb(
          batch.Put(view.snapshots,
                    RecordKey(metadata.persistence_id, metadata.sequence_nr),
                    rocksdb::Slice(reinterpret_cast<const char*>(value.data()),
                                   value.size())),
          "building a batch");
    }));
  });
}

void RocksDbSnapshotStore::AsyncDelete(SnapshotMetadata metadata,
                                       std::optional<WriteFence> /*fence*/,
                                       DoneCallback done) {
  done = InFlight(metadata.persistence_id, std::move(done));
  runner_.Post([this, metadata = std::move(metadata),
                done = std::move(done)]() mutable {
    std::move(done)(
        db_->Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
          if (metadata.sequence_nr < 0) return absl::OkStatus();  // none
          return FromRocksDb(
              batch.Delete(view.snapshots, RecordKey(metadata.persistence_id,
                                                     metadata.sequence_nr)),
              "building a batch");
        }));
  });
}

void RocksDbSnapshotStore::AsyncDeleteByCriteria(
    std::string persistence_id, SnapshotSelectionCriteria criteria,
    std::optional<WriteFence> /*fence*/, DoneCallback done) {
  done = InFlight(persistence_id, std::move(done));
  runner_.Post([this, persistence_id = std::move(persistence_id), criteria,
                done = std::move(done)]() mutable {
    std::move(done)(
        db_->Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
          absl::Status deleted;
          absl::Status read = ForEachCandidate(
              view, /*shared=*/nullptr, persistence_id, criteria,
              [&](int64_t sequence_nr,
                  const absl::StatusOr<SnapshotView>& snapshot) {
                // A damaged record's timestamp is unknown: its sequence
                // number, which the scan already admitted, decides, so that
                // retention can remove it.
                if (!snapshot.ok() ||
                    criteria.Matches(SnapshotMetadata{
                        persistence_id, sequence_nr, snapshot->timestamp})) {
                  deleted = FromRocksDb(
                      batch.Delete(view.snapshots,
                                   RecordKey(persistence_id, sequence_nr)),
                      "building a batch");
                }
                return deleted.ok();
              });
          return read.ok() ? deleted : read;
        }));
  });
}

}  // namespace cairn::persistence::rocksdb_internal
