#include "examples/plugin/example_journal.h"

#include <cstddef>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_copy.h"
#include "persistence/storage/plugin_support/atomic_write_check.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::examples::plugin {

using persistence::AtomicWrite;
using persistence::PersistentRepr;
using persistence::plugin_support::CheckAtomicWrite;
using persistence::plugin_support::CheckFollows;
using persistence::plugin_support::RecordError;

ExampleJournal::ExampleJournal(
    std::shared_ptr<const serialization::SerializationRegistry> serialization,
    ExampleJournalSettings settings)
    : serialization_(std::move(serialization)),
      settings_(settings),
      worker_(1, "example-journal") {}

ExampleJournal::~ExampleJournal() = default;

void ExampleJournal::AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                        WriteCallback done) {
  worker_.Post(
      [this, writes = std::move(writes), done = std::move(done)]() mutable {
        absl::StatusOr<std::vector<absl::Status>> per_write = Write(writes);
        if (!per_write.ok()) {
          // The whole call failed: every write's outcome is the call's. Each
          // its own copy, as the callback may hand them to other threads.
          std::vector<absl::Status> each;
          for (size_t i = 0; i < writes.size(); ++i) {
            each.push_back(base::OwnCopy(per_write.status()));
          }
          std::move(done)(base::OwnCopy(per_write.status()), std::move(each));
          return;
        }
        std::move(done)(absl::OkStatus(), *std::move(per_write));
      });
}

absl::StatusOr<std::vector<absl::Status>> ExampleJournal::Write(
    std::vector<AtomicWrite>& writes) {
  // 1. journal.h's rules, for the whole call before anything is stored:
  // every AtomicWrite well formed (InvalidArgument), then each following
  // its stream's highest as the writes before it, in this call too, leave
  // it (FailedPrecondition).
  for (const AtomicWrite& write : writes) {
    if (absl::Status s = CheckAtomicWrite(write); !s.ok()) return s;
  }
  absl::flat_hash_map<std::string, int64_t> highest;
  for (const AtomicWrite& write : writes) {
    const std::string& id = write.events.front().persistence_id;
    auto [it, inserted] = highest.try_emplace(id, 0);
    if (inserted) it->second = Highest(id);
    const int64_t first = write.events.front().sequence_nr;
    const int64_t last = write.events.back().sequence_nr;
    if (absl::Status s = CheckFollows(id, it->second, first, last); !s.ok()) {
      return s;
    }
    it->second = last;
  }

  // 2. Serialize. A write with an event that cannot be serialized is
  // rejected: none of its events is stored, its numbers count as used.
  std::vector<absl::Status> per_write(writes.size());
  std::vector<std::vector<StoredEvent>> stored(writes.size());
  int64_t adding = 0;
  for (size_t i = 0; i < writes.size(); ++i) {
    for (PersistentRepr& event : writes[i].events) {
      absl::StatusOr<serialization::SerializedPayload> payload =
          serialization_->Serialize(event.payload);
      if (!payload.ok()) {
        per_write[i] = RecordError(event.persistence_id, event.sequence_nr,
                                   payload.status());
        stored[i].clear();
        break;
      }
      stored[i].push_back({*std::move(payload),
                           std::move(event.adapter_manifest),
                           std::move(event.writer_uuid), event.timestamp,
                           std::move(event.tags)});
    }
    adding += static_cast<int64_t>(stored[i].size());
  }

  // 3. The limit of the config block.
  if (stored_events_ + adding > settings_.max_events) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "example.persistence.journal.max-events is ", settings_.max_events,
        ": the journal holds ", stored_events_, " events and this call adds ",
        adding, "; nothing of it was stored"));
  }

  // 4. Store. The checks above guarantee every number is new.
  for (size_t i = 0; i < writes.size(); ++i) {
    const PersistentRepr& front = writes[i].events.front();
    Stream& stream = streams_[front.persistence_id];
    stream.highest = writes[i].events.back().sequence_nr;
    int64_t sequence_nr = front.sequence_nr;
    for (StoredEvent& event : stored[i]) {
      stream.events.emplace(sequence_nr++, std::move(event));
    }
  }
  stored_events_ += adding;
  return per_write;
}

void ExampleJournal::AsyncReplayMessages(std::string persistence_id,
                                         int64_t from_sequence_nr,
                                         int64_t to_sequence_nr, int64_t max,
                                         ReplayCallback on_event,
                                         DoneCallback done) {
  worker_.Post([this, persistence_id = std::move(persistence_id),
                from_sequence_nr, to_sequence_nr, max,
                on_event = std::move(on_event),
                done = std::move(done)]() mutable {
    absl::Status status =
        Replay(persistence_id, from_sequence_nr, to_sequence_nr, max, on_event);
    std::move(done)(std::move(status));
  });
}

absl::Status ExampleJournal::Replay(const std::string& persistence_id,
                                    int64_t from, int64_t to, int64_t max,
                                    ReplayCallback& on_event) const {
  auto stream = streams_.find(persistence_id);
  if (stream == streams_.end()) return absl::OkStatus();
  const std::map<int64_t, StoredEvent>& events = stream->second.events;
  int64_t delivered = 0;
  for (auto it = events.lower_bound(from);
       it != events.end() && it->first <= to && delivered < max;
       ++it, ++delivered) {
    const StoredEvent& stored = it->second;
    absl::StatusOr<serialization::Payload> payload =
        serialization_->Deserialize(stored.payload.serializer_id,
                                    stored.payload.manifest,
                                    stored.payload.bytes);
    // The events before it were delivered; the replay ends here.
    if (!payload.ok()) {
      return RecordError(persistence_id, it->first, payload.status());
    }
    PersistentRepr repr;
    repr.persistence_id = persistence_id;
    repr.sequence_nr = it->first;
    repr.payload = *std::move(payload);
    repr.manifest = stored.payload.manifest;
    repr.adapter_manifest = stored.adapter_manifest;
    repr.writer_uuid = stored.writer_uuid;
    repr.timestamp = stored.timestamp;
    repr.tags = stored.tags;
    on_event(repr);
  }
  return absl::OkStatus();
}

int64_t ExampleJournal::Highest(const std::string& persistence_id) const {
  auto stream = streams_.find(persistence_id);
  return stream == streams_.end() ? 0 : stream->second.highest;
}

void ExampleJournal::AsyncReadHighestSequenceNr(std::string persistence_id,
                                                int64_t /*from_sequence_nr*/,
                                                HighestCallback done) {
  worker_.Post([this, persistence_id = std::move(persistence_id),
                done = std::move(done)]() mutable {
    std::move(done)(Highest(persistence_id));
  });
}

// Fences are ignored: no other process can write this store (journal.h).
void ExampleJournal::AsyncDeleteMessagesTo(
    std::string persistence_id, int64_t to_sequence_nr,
    std::optional<persistence::WriteFence> /*fence*/, DoneCallback done) {
  worker_.Post([this, persistence_id = std::move(persistence_id),
                to_sequence_nr, done = std::move(done)]() mutable {
    auto stream = streams_.find(persistence_id);
    if (stream != streams_.end()) {
      std::map<int64_t, StoredEvent>& events = stream->second.events;
      auto end = events.upper_bound(to_sequence_nr);
      stored_events_ -=
          static_cast<int64_t>(std::distance(events.begin(), end));
      events.erase(events.begin(), end);
    }
    std::move(done)(absl::OkStatus());
  });
}

}  // namespace cairn::examples::plugin
