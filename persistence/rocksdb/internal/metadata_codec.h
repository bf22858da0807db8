#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_METADATA_CODEC_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_METADATA_CODEC_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "flatbuffers/flatbuffers.h"

namespace cairn::persistence::rocksdb_internal {

inline constexpr uint16_t kMetadataFormatVersion = 1;

// The stored value (a StreamMetadata FlatBuffer).
flatbuffers::DetachedBuffer EncodeStreamMetadata(int64_t highest_sequence_nr);

// The highest sequence number recorded in a verified StreamMetadata value;
// DataLoss naming the persistence id if `value` cannot be trusted.
absl::StatusOr<int64_t> DecodeStreamMetadata(std::string_view persistence_id,
                                             std::string_view value);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_METADATA_CODEC_H_
