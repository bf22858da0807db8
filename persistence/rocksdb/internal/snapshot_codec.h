#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_CODEC_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_CODEC_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/aligned_bytes.h"
#include "flatbuffers/flatbuffers.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serializer.h"

namespace cairn::persistence::rocksdb_internal {

inline constexpr uint16_t kSnapshotFormatVersion = 1;

// The stored value (a StoredSnapshot FlatBuffer).
flatbuffers::DetachedBuffer EncodeSnapshot(
    const SnapshotMetadata& metadata,
    const serialization::SerializedPayload& payload);

// A verified StoredSnapshot; the views point into the decoded value, or
// into `aligned`, its aligned copy (aligned_bytes.h).
struct SnapshotView {
  base::AlignedBytes aligned;
  int64_t timestamp = 0;
  int32_t serializer_id = 0;
  std::string_view manifest;
  std::string_view payload;
};

// As DecodeEvent (event_codec.h), for snapshots.
absl::StatusOr<SnapshotView> DecodeSnapshot(std::string_view persistence_id,
                                            int64_t sequence_nr,
                                            std::string_view value);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_SNAPSHOT_CODEC_H_
