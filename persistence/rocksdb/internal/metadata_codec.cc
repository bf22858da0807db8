#include "persistence/rocksdb/internal/metadata_codec.h"

#include "absl/status/status.h"
#include "base/aligned_bytes.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/stream_metadata_generated.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::rocksdb_internal {

using base::AlignedBytes;
using plugin_support::CheckFormatVersion;
using plugin_support::Corrupt;

namespace fb = ::cairn::persistence::storage;

flatbuffers::DetachedBuffer EncodeStreamMetadata(int64_t highest_sequence_nr) {
  flatbuffers::FlatBufferBuilder builder(64);
  builder.Finish(fb::CreateStreamMetadata(builder, kMetadataFormatVersion,
                                          highest_sequence_nr),
                 fb::StreamMetadataIdentifier());
  return builder.Release();
}

absl::StatusOr<int64_t> DecodeStreamMetadata(std::string_view persistence_id,
                                             std::string_view value) {
  auto error = [&](const absl::Status& cause) {
    return absl::Status(cause.code(),
                        base::StrCat("persistence id '", persistence_id,
                                     "': ", cause.message()));
  };
  const AlignedBytes aligned(value);
  flatbuffers::Verifier verifier(aligned.data(), aligned.size());
  if (!fb::VerifyStreamMetadataBuffer(verifier)) {
    return error(
        Corrupt("stream metadata", "not a valid StreamMetadata FlatBuffer"));
  }
  const fb::StreamMetadata* stored = fb::GetStreamMetadata(aligned.data());
  absl::Status version = CheckFormatVersion(
      "stream metadata", stored->format_version(), kMetadataFormatVersion);
  if (!version.ok()) return error(version);
  if (stored->highest_sequence_nr() < 0) {
    return error(Corrupt("stream metadata", "negative sequence number"));
  }
  return stored->highest_sequence_nr();
}

}  // namespace cairn::persistence::rocksdb_internal
