#include "persistence/inmem/internal/in_memory_snapshot_store.h"

#include <map>
#include <utility>

#include "base/string_view.h"

namespace cairn::persistence::inmem_internal {
namespace {

absl::Status SnapshotError(std::string_view persistence_id, int64_t sequence_nr,
                           const absl::Status& cause) {
  return absl::Status(
      cause.code(),
      base::StrCat("snapshot of persistence id '", persistence_id,
                   "', sequence nr ", sequence_nr, ": ", cause.message()));
}

}  // namespace

InMemorySnapshotStore::InMemorySnapshotStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : registry_(std::move(registry)), runner_(1, "cairn-inmem-snap") {}

InMemorySnapshotStore::~InMemorySnapshotStore() = default;

void InMemorySnapshotStore::AsyncLoad(std::string persistence_id,
                                      SnapshotSelectionCriteria criteria,
                                      int64_t to_sequence_nr,
                                      LoadCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id), criteria,
                to_sequence_nr, done = std::move(done)]() mutable {
    std::move(done)(Load(persistence_id, criteria, to_sequence_nr));
  });
}

absl::StatusOr<LoadSnapshotResult> InMemorySnapshotStore::Load(
    const std::string& persistence_id,
    const SnapshotSelectionCriteria& requested, int64_t to_sequence_nr) const {
  LoadSnapshotResult result;
  result.to_sequence_nr = to_sequence_nr;
  const SnapshotSelectionCriteria criteria = requested.Limit(to_sequence_nr);
  auto stream = streams_.find(persistence_id);
  if (stream == streams_.end()) return result;
  const Snapshots& snapshots = stream->second;
  for (auto it = snapshots.upper_bound(criteria.max_sequence_nr);
       it != snapshots.begin();) {
    --it;
    SnapshotMetadata metadata{persistence_id, it->first, it->second.timestamp};
    if (!criteria.Matches(metadata)) continue;
    const serialization::SerializedPayload& stored = it->second.payload;
    absl::StatusOr<serialization::Payload> payload = registry_->Deserialize(
        stored.serializer_id, stored.manifest, stored.bytes);
    if (!payload.ok()) {
      // Passed over for the next older one, as the RocksDB store does.
      result.unreadable.push_back(
          SnapshotError(persistence_id, it->first, payload.status()));
      continue;
    }
    result.snapshot =
        SelectedSnapshot{std::move(metadata), *std::move(payload)};
    break;
  }
  return result;
}

// Fences are ignored here: one process's store (snapshot_store.h).
void InMemorySnapshotStore::AsyncSave(SnapshotMetadata metadata,
                                      serialization::Payload snapshot,
                                      std::optional<WriteFence> /*fence*/,
                                      DoneCallback done) {
  absl::StatusOr<serialization::SerializedPayload> payload =
      registry_->Serialize(snapshot);
  runner_.Post([this, metadata = std::move(metadata),
                payload = std::move(payload),
                done = std::move(done)]() mutable {
    if (!payload.ok()) {
      std::move(done)(SnapshotError(metadata.persistence_id,
                                    metadata.sequence_nr, payload.status()));
      return;
    }
    if (metadata.persistence_id.empty() || metadata.sequence_nr < 0) {
      std::move(done)(SnapshotError(
          metadata.persistence_id, metadata.sequence_nr,
          absl::InvalidArgumentError(
              "needs a persistence id and a sequence number of 0 or more")));
      return;
    }
    streams_[metadata.persistence_id].insert_or_assign(
        metadata.sequence_nr, Stored{metadata.timestamp, *std::move(payload)});
    std::move(done)(absl::OkStatus());
  });
}

void InMemorySnapshotStore::AsyncDelete(SnapshotMetadata metadata,
                                        std::optional<WriteFence> /*fence*/,
                                        DoneCallback done) {
  runner_.Post(
      [this, metadata = std::move(metadata), done = std::move(done)]() mutable {
        auto stream = streams_.find(metadata.persistence_id);
        if (stream != streams_.end())
          stream->second.erase(metadata.sequence_nr);
        std::move(done)(absl::OkStatus());
      });
}

void InMemorySnapshotStore::AsyncDeleteByCriteria(
    std::string persistence_id, SnapshotSelectionCriteria criteria,
    std::optional<WriteFence> /*fence*/, DoneCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id), criteria,
                done = std::move(done)]() mutable {
    auto stream = streams_.find(persistence_id);
    if (stream != streams_.end()) {
      std::erase_if(stream->second, [&](const auto& entry) {
        return criteria.Matches(SnapshotMetadata{persistence_id, entry.first,
                                                 entry.second.timestamp});
      });
    }
    std::move(done)(absl::OkStatus());
  });
}

}  // namespace cairn::persistence::inmem_internal
