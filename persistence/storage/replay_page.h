#ifndef CAIRN_PERSISTENCE_STORAGE_REPLAY_PAGE_H_
#define CAIRN_PERSISTENCE_STORAGE_REPLAY_PAGE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "serialization/payload.h"
#include "serialization/serialization.h"

namespace cairn::persistence {

// One page of a stream's replay (Journal::AsyncReplayPage): its events in
// order, each either deserialized already or still serialized, verified
// by the journal and deserialized by whoever reads the page, on its own
// thread. Why: deserializing is most of a replay's work beyond the
// store's scan; done by the reader of the page, it overlaps the journal's
// reading of the next page, and the payloads are made and freed on one
// thread (issue 35: replay at the store's speed).
//
// Not thread-safe: filled on one thread, then handed over (moved) and read
// on another.
class ReplayPage {
 public:
  // A page of deserialized events only (AddPayload).
  ReplayPage() = default;
  // A page that may hold serialized events too, deserialized through
  // `registry` (the journal's, kept alive by the page).
  explicit ReplayPage(
      std::shared_ptr<const serialization::SerializationRegistry> registry)
      : registry_(std::move(registry)) {}
  ReplayPage(ReplayPage&&) = default;
  ReplayPage& operator=(ReplayPage&&) = default;

  // Room for `events` events of about `payload_bytes` serialized bytes in
  // all.
  void Reserve(size_t events, size_t payload_bytes);

  // Appends an event deserialized already.
  void AddPayload(int64_t sequence_nr, serialization::Payload payload);
  // Appends a serialized event: `bytes` as serializer `serializer_id`
  // wrote it under `manifest`. Both are copied (the page keeps one copy of
  // each distinct manifest). Only on a page made with a registry.
  void AddSerialized(int64_t sequence_nr, int32_t serializer_id,
                     std::string_view manifest, std::string_view bytes);

  size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }
  // The last event's sequence number; 0 when empty.
  int64_t last_sequence_nr() const {
    return events_.empty() ? 0 : events_.back().sequence_nr;
  }

  // Calls `each` with every event in order, deserializing a serialized one
  // first; stops early if `each` returns false (then OK). An event that
  // cannot be deserialized stops it with the error, naming
  // `persistence_id` and the sequence number as a journal's replay would
  // (events before it have gone to `each`).
  absl::Status ForEach(
      std::string_view persistence_id,
      absl::FunctionRef<bool(const serialization::Payload& payload,
                             int64_t sequence_nr)>
          each) const;

 private:
  struct Event {
    int64_t sequence_nr = 0;
    serialization::Payload payload;  // unless serialized
    bool serialized = false;
    int32_t serializer_id = 0;
    uint32_t manifest = 0;  // in manifests_
    size_t offset = 0;      // in bytes_
    size_t size = 0;
  };
  std::shared_ptr<const serialization::SerializationRegistry> registry_;
  std::vector<Event> events_;
  // The distinct manifests, in order of first use: a page's events have
  // one or a few.
  std::vector<std::string> manifests_;
  uint32_t last_manifest_ = 0;  // the last event's
  std::string bytes_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_REPLAY_PAGE_H_
