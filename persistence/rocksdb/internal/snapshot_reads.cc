#include "persistence/rocksdb/internal/snapshot_reads.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/key_codec.h"

namespace cairn::persistence::rocksdb_internal {

absl::Status ForEachCandidate(
    const Db::View& view, BoundedIterator* shared,
    const std::string& persistence_id,
    const SnapshotSelectionCriteria& criteria,
    absl::FunctionRef<bool(int64_t sequence_nr,
                           const absl::StatusOr<SnapshotView>&)>
        visit) {
  const int64_t min = std::max<int64_t>(criteria.min_sequence_nr, 0);
  if (criteria.max_sequence_nr < min) return absl::OkStatus();
  const std::string lower = RecordKey(persistence_id, min);
  const std::string upper = KeyAfter(persistence_id, criteria.max_sequence_nr);
  std::optional<BoundedIterator> own;
  if (shared == nullptr) shared = &own.emplace(view.db, view.snapshots);
  rocksdb::Iterator* it = &shared->Within(lower, upper);
  it->SeekToLast();
  // Where the scan stands, for an error below the records: every snapshot
  // above it was read.
  int64_t at_or_below = criteria.max_sequence_nr;
  for (; it->Valid() && it->key().compare(lower) >= 0; it->Prev()) {
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

absl::StatusOr<LoadSnapshotResult> LoadSnapshot(
    const Db::View& view, BoundedIterator* shared,
    const serialization::SerializationRegistry& registry,
    const std::string& persistence_id,
    const SnapshotSelectionCriteria& criteria, int64_t to_sequence_nr) {
  const SnapshotSelectionCriteria limited = criteria.Limit(to_sequence_nr);
  LoadSnapshotResult result;
  result.to_sequence_nr = to_sequence_nr;
  absl::Status status = ForEachCandidate(
      view, shared, persistence_id, limited,
      [&](int64_t sequence_nr, const absl::StatusOr<SnapshotView>& snapshot) {
        // A record that cannot be read is passed over for the next older
        // one (Akka's local snapshot store); the recovery learns of it
        // from `unreadable`.
        if (!snapshot.ok()) {
          // An own copy: the result goes to another thread (see
          // persistent_actor_writes.cc on absl::Status under TSan).
          result.unreadable.push_back(absl::Status(
              snapshot.status().code(), snapshot.status().message()));
          return true;
        }
        SnapshotMetadata metadata{persistence_id, sequence_nr,
                                  snapshot->timestamp};
        if (!limited.Matches(metadata)) return true;
        absl::StatusOr<serialization::Payload> payload = registry.Deserialize(
            snapshot->serializer_id, snapshot->manifest, snapshot->payload);
        if (!payload.ok()) {
          result.unreadable.push_back(
              Unserializable(metadata, payload.status()));
          return true;
        }
        result.snapshot =
            SelectedSnapshot{std::move(metadata), *std::move(payload)};
        return false;
      });
  if (!status.ok()) return status;
  return result;
}

absl::Status Unserializable(const SnapshotMetadata& metadata,
                            const absl::Status& cause) {
  return absl::Status(
      cause.code(), base::StrCat("snapshot of persistence id '",
                                 metadata.persistence_id, "', sequence nr ",
                                 metadata.sequence_nr, ": ", cause.message()));
}

}  // namespace cairn::persistence::rocksdb_internal
