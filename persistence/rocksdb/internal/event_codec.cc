#include "persistence/rocksdb/internal/event_codec.h"

#include <string>

#include "absl/status/status.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/stored_event_generated.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::internal {

namespace fb = ::cairn::persistence::storage;

flatbuffers::DetachedBuffer EncodeEvent(const PersistentRepr& event,
                                        const SerializedPayload& payload) {
  flatbuffers::FlatBufferBuilder builder(
      128 + event.persistence_id.size() + event.writer_uuid.size() +
      payload.manifest.size() + event.adapter_manifest.size() +
      payload.bytes.size());
  auto persistence_id = builder.CreateString(event.persistence_id);
  auto writer_uuid = builder.CreateString(event.writer_uuid);
  auto manifest = builder.CreateString(payload.manifest);
  auto bytes = builder.CreateVector(
      reinterpret_cast<const uint8_t*>(payload.bytes.data()),
      payload.bytes.size());
  flatbuffers::Offset<
      flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
      tags;
  if (!event.tags.empty()) tags = builder.CreateVectorOfStrings(event.tags);
  flatbuffers::Offset<flatbuffers::String> adapter_manifest;
  if (!event.adapter_manifest.empty()) {
    adapter_manifest = builder.CreateString(event.adapter_manifest);
  }
  builder.Finish(
      fb::CreateStoredEvent(builder, kEventFormatVersion, persistence_id,
                            event.sequence_nr, writer_uuid, event.timestamp,
                            payload.serializer_id, manifest, bytes, tags,
                            adapter_manifest),
      fb::StoredEventIdentifier());
  return builder.Release();
}

absl::StatusOr<EventView> DecodeEvent(std::string_view persistence_id,
                                      int64_t sequence_nr,
                                      std::string_view value) {
  auto error = [&](const absl::Status& cause) {
    return RecordError(persistence_id, sequence_nr, cause);
  };
  AlignedBytes aligned(value);
  flatbuffers::Verifier verifier(aligned.data(), aligned.size());
  if (!fb::VerifyStoredEventBuffer(verifier)) {
    return error(Corrupt("event", "not a valid StoredEvent FlatBuffer"));
  }
  const fb::StoredEvent* stored = fb::GetStoredEvent(aligned.data());
  absl::Status version = CheckFormatVersion("event", stored->format_version(),
                                            kEventFormatVersion);
  if (!version.ok()) return error(version);
  if (stored->persistence_id() == nullptr || stored->payload() == nullptr) {
    return error(
        Corrupt("event", "the persistence id or the payload is missing"));
  }
  EventView view;
  view.aligned = std::move(aligned);
  view.persistence_id = stored->persistence_id()->string_view();
  view.sequence_nr = stored->sequence_nr();
  if (view.persistence_id != persistence_id ||
      view.sequence_nr != sequence_nr) {
    return error(
        Corrupt("event", base::StrCat("the record is that of persistence id '",
                                      view.persistence_id, "', sequence nr ",
                                      view.sequence_nr)));
  }
  view.writer_uuid = StringOrEmpty(stored->writer_uuid());
  view.timestamp = stored->timestamp();
  view.serializer_id = stored->serializer_id();
  view.manifest = StringOrEmpty(stored->manifest());
  view.adapter_manifest = StringOrEmpty(stored->adapter_manifest());
  view.payload =
      std::string_view(reinterpret_cast<const char*>(stored->payload()->data()),
                       stored->payload()->size());
  if (stored->tags() != nullptr) {
    view.tags.reserve(stored->tags()->size());
    for (const flatbuffers::String* tag : *stored->tags()) {
      view.tags.push_back(tag->string_view());
    }
  }
  return view;
}

}  // namespace cairn::persistence::internal
