#include "examples/plugin/example_snapshot_store.h"

#include <utility>

#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::examples::plugin {

using persistence::SnapshotMetadata;
using persistence::SnapshotSelectionCriteria;
using persistence::plugin_support::RecordError;
using serialization::Payload;

ExampleSnapshotStore::ExampleSnapshotStore(
    std::shared_ptr<const serialization::SerializationRegistry> serialization)
    : serialization_(std::move(serialization)), worker_(1, "example-snaps") {}

ExampleSnapshotStore::~ExampleSnapshotStore() = default;

void ExampleSnapshotStore::AsyncLoad(std::string persistence_id,
                                     SnapshotSelectionCriteria criteria,
                                     int64_t to_sequence_nr,
                                     LoadCallback done) {
  worker_.Post([this, persistence_id = std::move(persistence_id), criteria,
                to_sequence_nr, done = std::move(done)]() mutable {
    persistence::LoadSnapshotResult result =
        Load(persistence_id, criteria.Limit(to_sequence_nr));
    result.to_sequence_nr = to_sequence_nr;
    std::move(done)(std::move(result));
  });
}

persistence::LoadSnapshotResult ExampleSnapshotStore::Load(
    const std::string& persistence_id,
    const SnapshotSelectionCriteria& criteria) const {
  persistence::LoadSnapshotResult result;
  auto stream = streams_.find(persistence_id);
  if (stream == streams_.end()) return result;
  const Snapshots& snapshots = stream->second;
  // Newest first, from the highest sequence number the criteria allow.
  for (auto it = snapshots.upper_bound(criteria.max_sequence_nr);
       it != snapshots.begin();) {
    --it;
    SnapshotMetadata metadata{persistence_id, it->first, it->second.timestamp};
    if (!criteria.Matches(metadata)) continue;
    const serialization::SerializedPayload& stored = it->second.payload;
    absl::StatusOr<Payload> snapshot = serialization_->Deserialize(
        stored.serializer_id, stored.manifest, stored.bytes);
    if (!snapshot.ok()) {
      // Passed over, and reported: the recovery replays more events.
      result.unreadable.push_back(
          RecordError(persistence_id, it->first, snapshot.status()));
      continue;
    }
    result.snapshot = persistence::SelectedSnapshot{std::move(metadata),
                                                    *std::move(snapshot)};
    break;
  }
  return result;
}

// Fences are ignored: no other process can change this store
// (snapshot_store.h).
void ExampleSnapshotStore::AsyncSave(
    SnapshotMetadata metadata, Payload snapshot,
    std::optional<persistence::WriteFence> /*fence*/, DoneCallback done) {
  worker_.Post([this, metadata = std::move(metadata),
                snapshot = std::move(snapshot),
                done = std::move(done)]() mutable {
    absl::Status status = Save(metadata, snapshot);
    std::move(done)(std::move(status));
  });
}

absl::Status ExampleSnapshotStore::Save(const SnapshotMetadata& metadata,
                                        const Payload& snapshot) {
  if (metadata.persistence_id.empty() || metadata.sequence_nr < 0) {
    return RecordError(
        metadata.persistence_id, metadata.sequence_nr,
        absl::InvalidArgumentError(
            "a snapshot needs a persistence id and a sequence number of 0 "
            "or more"));
  }
  absl::StatusOr<serialization::SerializedPayload> payload =
      serialization_->Serialize(snapshot);
  if (!payload.ok()) {
    return RecordError(metadata.persistence_id, metadata.sequence_nr,
                       payload.status());
  }
  streams_[metadata.persistence_id].insert_or_assign(
      metadata.sequence_nr, Stored{metadata.timestamp, *std::move(payload)});
  return absl::OkStatus();
}

void ExampleSnapshotStore::AsyncDelete(
    SnapshotMetadata metadata, std::optional<persistence::WriteFence> /*fence*/,
    DoneCallback done) {
  worker_.Post(
      [this, metadata = std::move(metadata), done = std::move(done)]() mutable {
        auto stream = streams_.find(metadata.persistence_id);
        if (stream != streams_.end()) {
          stream->second.erase(metadata.sequence_nr);
        }
        std::move(done)(absl::OkStatus());
      });
}

void ExampleSnapshotStore::AsyncDeleteByCriteria(
    std::string persistence_id, SnapshotSelectionCriteria criteria,
    std::optional<persistence::WriteFence> /*fence*/, DoneCallback done) {
  worker_.Post([this, persistence_id = std::move(persistence_id), criteria,
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

}  // namespace cairn::examples::plugin
