#include "persistence/storage/replay_page.h"

#include <utility>

#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence {

void ReplayPage::Reserve(size_t events, size_t payload_bytes) {
  events_.reserve(events);
  bytes_.reserve(payload_bytes);
}

void ReplayPage::AddPayload(int64_t sequence_nr,
                            serialization::Payload payload) {
  Event& event = events_.emplace_back();
  event.sequence_nr = sequence_nr;
  event.payload = std::move(payload);
}

void ReplayPage::AddSerialized(int64_t sequence_nr, int32_t serializer_id,
                               std::string_view manifest,
                               std::string_view bytes) {
  // Mostly the same as the event before's; else one of a few.
  auto index = static_cast<uint32_t>(manifests_.size());
  if (!manifests_.empty() && manifests_[last_manifest_] == manifest) {
    index = last_manifest_;
  } else {
    for (uint32_t i = 0; i < manifests_.size(); ++i) {
      if (manifests_[i] == manifest) {
        index = i;
        break;
      }
    }
    if (index == manifests_.size()) manifests_.emplace_back(manifest);
    last_manifest_ = index;
  }
  Event& event = events_.emplace_back();
  event.sequence_nr = sequence_nr;
  event.serialized = true;
  event.serializer_id = serializer_id;
  event.manifest = index;
  event.offset = bytes_.size();
  event.size = bytes.size();
  bytes_.append(bytes);
}

absl::Status ReplayPage::ForEach(
    std::string_view persistence_id,
    absl::FunctionRef<bool(const serialization::Payload& payload,
                           int64_t sequence_nr)>
        each) const {
  for (const Event& event : events_) {
    if (!event.serialized) {
      if (!each(event.payload, event.sequence_nr)) return absl::OkStatus();
      continue;
    }
    absl::StatusOr<serialization::Payload> payload = registry_->Deserialize(
        event.serializer_id, manifests_[event.manifest],
        std::string_view(bytes_).substr(event.offset, event.size));
    if (!payload.ok()) {
      return plugin_support::RecordError(persistence_id, event.sequence_nr,
                                         payload.status());
    }
    if (!each(*payload, event.sequence_nr)) return absl::OkStatus();
  }
  return absl::OkStatus();
}

}  // namespace cairn::persistence
