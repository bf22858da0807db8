#include "persistence/rocksdb/internal/rocksdb_snapshot_store.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/snapshot_codec.h"
#include "persistence/storage/plugin_support/record_check.h"
#include "rocksdb/iterator.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

// Visits the stored snapshots of `persistence_id` whose sequence numbers
// `criteria` admits, newest first, until `visit` returns false. A record
// that fails verification is visited with its error (naming the stream and
// sequence number), so that the caller decides whether to go past it; a
// damaged key or a failing read ends the scan with an error.
absl::Status ForEachCandidate(
    const Db::View& view, const std::string& persistence_id,
    const SnapshotSelectionCriteria& criteria,
    absl::FunctionRef<bool(int64_t sequence_nr,
                           const absl::StatusOr<SnapshotView>&)>
        visit) {
  const int64_t min = std::max<int64_t>(criteria.min_sequence_nr, 0);
  if (criteria.max_sequence_nr < min) return absl::OkStatus();
  const std::string lower = RecordKey(persistence_id, min);
  const std::string upper = KeyAfter(persistence_id, criteria.max_sequence_nr);
  rocksdb::Slice lower_slice(lower);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions options;
  options.iterate_lower_bound = &lower_slice;
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(options, view.snapshots));
  // Where the scan stands, for an error below the records: every snapshot
  // above it was read.
  int64_t at_or_below = criteria.max_sequence_nr;
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    absl::StatusOr<DecodedKey> key = DecodeRecordKey(it->key().ToStringView());
    if (!key.ok() || key->persistence_id != persistence_id) {
      return absl::DataLossError(
          base::StrCat("snapshots of persistence id '", persistence_id, "': ",
                       key.ok() ? "a key of another stream in its range"
                                : key.status().message()));
    }
    absl::StatusOr<SnapshotView> snapshot = DecodeSnapshot(
        persistence_id, key->sequence_nr, it->value().ToStringView());
    if (!visit(key->sequence_nr, snapshot)) return absl::OkStatus();
    at_or_below = key->sequence_nr - 1;
  }
  return FromRocksDb(it->status(),
                     base::StrCat("snapshots of persistence id '",
                                  persistence_id, "' at or below sequence nr ",
                                  at_or_below, ": cannot be read"));
}

absl::Status Unserializable(const SnapshotMetadata& metadata,
                            const absl::Status& cause) {
  return absl::Status(
      cause.code(), base::StrCat("snapshot of persistence id '",
                                 metadata.persistence_id, "', sequence nr ",
                                 metadata.sequence_nr, ": ", cause.message()));
}

}  // namespace

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
  runner_.Post([this, persistence_id = std::move(persistence_id),
                criteria = criteria.Limit(to_sequence_nr), to_sequence_nr,
                done = std::move(done)]() mutable {
    LoadSnapshotResult result;
    result.to_sequence_nr = to_sequence_nr;
    absl::Status status = db_->Read([&](const Db::View& view) {
      return ForEachCandidate(
          view, persistence_id, criteria,
          [&](int64_t sequence_nr,
              const absl::StatusOr<SnapshotView>& snapshot) {
            // A record that cannot be read is passed over for the next
            // older one (Akka's local snapshot store); the recovery learns
            // of it from `unreadable`.
            if (!snapshot.ok()) {
              // An own copy: the result goes to another thread (see
              // persistent_actor_writes.cc on absl::Status under TSan).
              result.unreadable.push_back(absl::Status(
                  snapshot.status().code(), snapshot.status().message()));
              return true;
            }
            SnapshotMetadata metadata{persistence_id, sequence_nr,
                                      snapshot->timestamp};
            if (!criteria.Matches(metadata)) return true;
            absl::StatusOr<serialization::Payload> payload =
                registry_->Deserialize(snapshot->serializer_id,
                                       snapshot->manifest, snapshot->payload);
            if (!payload.ok()) {
              result.unreadable.push_back(
                  Unserializable(metadata, payload.status()));
              return true;
            }
            result.snapshot =
                SelectedSnapshot{std::move(metadata), *std::move(payload)};
            return false;
          });
    });
    std::move(done)(
        status.ok() ? absl::StatusOr<LoadSnapshotResult>(std::move(result))
                    : absl::StatusOr<LoadSnapshotResult>(std::move(status)));
  });
}

// Fences are ignored here: one process's store (snapshot_store.h).
void RocksDbSnapshotStore::AsyncSave(SnapshotMetadata metadata,
                                     serialization::Payload snapshot,
                                     std::optional<WriteFence> /*fence*/,
                                     DoneCallback done) {
  absl::StatusOr<serialization::SerializedPayload> payload =
      registry_->Serialize(snapshot);
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
  runner_.Post([this, persistence_id = std::move(persistence_id), criteria,
                done = std::move(done)]() mutable {
    std::move(done)(
        db_->Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
          absl::Status deleted;
          absl::Status read = ForEachCandidate(
              view, persistence_id, criteria,
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
