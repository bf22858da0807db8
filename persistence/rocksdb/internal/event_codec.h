#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_EVENT_CODEC_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_EVENT_CODEC_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "flatbuffers/flatbuffers.h"
#include "persistence/storage/persistent_repr.h"
#include "persistence/storage/plugin_support/aligned_bytes.h"
#include "persistence/storage/serializer.h"

namespace cairn::persistence::internal {

// The envelope version this code writes and the highest it reads.
inline constexpr uint16_t kEventFormatVersion = 1;

// The stored value (a StoredEvent FlatBuffer) for `event`, whose payload
// was serialized to `payload`.
flatbuffers::DetachedBuffer EncodeEvent(const PersistentRepr& event,
                                        const SerializedPayload& payload);

// A verified StoredEvent; the views point into the decoded value, or into
// `aligned`, its aligned copy.
struct EventView {
  AlignedBytes aligned;
  std::string_view persistence_id;
  int64_t sequence_nr = 0;
  std::string_view writer_uuid;
  int64_t timestamp = 0;
  int32_t serializer_id = 0;
  std::string_view manifest;
  std::string_view adapter_manifest;
  std::string_view payload;
  std::vector<std::string_view> tags;
};

// Verifies `value` (FlatBuffers Verifier, file identifier, format version,
// required fields) and that it is the record of (persistence_id,
// sequence_nr), the identity its key gives. DataLoss naming both otherwise.
absl::StatusOr<EventView> DecodeEvent(std::string_view persistence_id,
                                      int64_t sequence_nr,
                                      std::string_view value);

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_EVENT_CODEC_H_
