#include "persistence/rocksdb/internal/snapshot_codec.h"

#include "absl/status/status.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/stored_snapshot_generated.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::rocksdb_internal {

using base::AlignedBytes;
using plugin_support::CheckFormatVersion;
using plugin_support::Corrupt;
using plugin_support::RecordError;
using plugin_support::StringOrEmpty;

namespace fb = ::cairn::persistence::storage;

flatbuffers::DetachedBuffer EncodeSnapshot(
    const SnapshotMetadata& metadata,
    const serialization::SerializedPayload& payload) {
  flatbuffers::FlatBufferBuilder builder(128 + metadata.persistence_id.size() +
                                         payload.manifest.size() +
                                         payload.bytes.size());
  auto persistence_id = builder.CreateString(metadata.persistence_id);
  auto manifest = builder.CreateString(payload.manifest);
  auto bytes = builder.CreateVector(
      reinterpret_cast<const uint8_t*>(payload.bytes.data()),
      payload.bytes.size());
  builder.Finish(
      fb::CreateStoredSnapshot(builder, kSnapshotFormatVersion, persistence_id,
                               metadata.sequence_nr, metadata.timestamp,
                               payload.serializer_id, manifest, bytes),
      fb::StoredSnapshotIdentifier());
  return builder.Release();
}

absl::StatusOr<SnapshotView> DecodeSnapshot(std::string_view persistence_id,
                                            int64_t sequence_nr,
                                            std::string_view value) {
  auto error = [&](const absl::Status& cause) {
    return RecordError(persistence_id, sequence_nr, cause);
  };
  AlignedBytes aligned(value);
  flatbuffers::Verifier verifier(aligned.data(), aligned.size());
  if (!fb::VerifyStoredSnapshotBuffer(verifier)) {
    return error(Corrupt("snapshot", "not a valid StoredSnapshot FlatBuffer"));
  }
  const fb::StoredSnapshot* stored = fb::GetStoredSnapshot(aligned.data());
  absl::Status version = CheckFormatVersion(
      "snapshot", stored->format_version(), kSnapshotFormatVersion);
  if (!version.ok()) return error(version);
  if (stored->persistence_id() == nullptr || stored->payload() == nullptr) {
    return error(
        Corrupt("snapshot", "the persistence id or the payload is missing"));
  }
  if (stored->persistence_id()->string_view() != persistence_id ||
      stored->sequence_nr() != sequence_nr) {
    return error(Corrupt(
        "snapshot", base::StrCat("the record is that of persistence id '",
                                 stored->persistence_id()->string_view(),
                                 "', sequence nr ", stored->sequence_nr())));
  }
  SnapshotView view;
  view.aligned = std::move(aligned);
  view.timestamp = stored->timestamp();
  view.serializer_id = stored->serializer_id();
  view.manifest = StringOrEmpty(stored->manifest());
  view.payload =
      std::string_view(reinterpret_cast<const char*>(stored->payload()->data()),
                       stored->payload()->size());
  return view;
}

}  // namespace cairn::persistence::rocksdb_internal
