#include "persistence/inmem/internal/in_memory_journal.h"

#include <algorithm>
#include <utility>

#include "base/mutex.h"
#include "persistence/inmem/internal/in_memory_read_journal.h"
#include "persistence/storage/plugin_support/atomic_write_check.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::inmem_internal {

using plugin_support::CheckAtomicWrite;
using plugin_support::CheckFollows;
using plugin_support::RecordError;

absl::StatusOr<PersistentRepr> DecodeStoredEvent(
    const serialization::SerializationRegistry& registry,
    const std::string& persistence_id,
    const InMemoryStore::StoredEvent& stored) {
  absl::StatusOr<serialization::Payload> payload =
      registry.Deserialize(stored.payload.serializer_id,
                           stored.payload.manifest, stored.payload.bytes);
  if (!payload.ok()) {
    return RecordError(persistence_id, stored.sequence_nr, payload.status());
  }
  PersistentRepr repr;
  repr.persistence_id = persistence_id;
  repr.sequence_nr = stored.sequence_nr;
  repr.payload = *std::move(payload);
  repr.manifest = stored.payload.manifest;
  repr.adapter_manifest = stored.adapter_manifest;
  repr.writer_uuid = stored.writer_uuid;
  repr.timestamp = stored.timestamp;
  repr.tags = stored.tags;
  return repr;
}

InMemoryJournal::InMemoryJournal(
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : registry_(std::move(registry)),
      store_(std::make_shared<InMemoryStore>()),
      runner_(1, "cairn-inmem-jrnl") {}

InMemoryJournal::~InMemoryJournal() = default;

absl::StatusOr<std::unique_ptr<ReadJournal>> InMemoryJournal::NewReadJournal() {
  return std::make_unique<InMemoryReadJournal>(store_, registry_);
}

void InMemoryJournal::AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                         WriteCallback done) {
  // Checked and serialized here, on the caller's thread, as the RocksDB
  // journal does; the sequence rule is checked on the journal's thread,
  // which alone knows the streams.
  absl::Status malformed;
  std::vector<Accepted> accepted;
  std::vector<absl::Status> per_write;
  accepted.reserve(writes.size());
  per_write.reserve(writes.size());
  for (AtomicWrite& write : writes) {
    malformed = CheckAtomicWrite(write);
    if (!malformed.ok()) break;
    Accepted& a = accepted.emplace_back();
    a.persistence_id = write.events.front().persistence_id;
    a.first = write.events.front().sequence_nr;
    a.last = write.events.back().sequence_nr;
    absl::Status status;
    for (PersistentRepr& event : write.events) {
      absl::StatusOr<serialization::SerializedPayload> payload =
          registry_->Serialize(event.payload);
      if (!payload.ok()) {
        status = RecordError(event.persistence_id, event.sequence_nr,
                             payload.status());
        a.events.clear();
        break;
      }
      a.events.push_back({event.sequence_nr, *std::move(payload),
                          std::move(event.adapter_manifest),
                          std::move(event.writer_uuid), event.timestamp,
                          std::move(event.tags)});
    }
    per_write.push_back(std::move(status));
  }
  runner_.Post([this, malformed = std::move(malformed),
                accepted = std::move(accepted),
                per_write = std::move(per_write), count = writes.size(),
                done = std::move(done)]() mutable {
    absl::Status failed = malformed.ok() ? CheckSequence(accepted) : malformed;
    if (!failed.ok()) {
      // Each status its own copy: the callback hands them to other
      // threads, and absl::Status's shared reference count is invisible to
      // ThreadSanitizer (absl is not instrumented).
      std::vector<absl::Status> per_write;
      per_write.reserve(count);
      for (size_t i = 0; i < count; ++i) {
        per_write.emplace_back(failed.code(), failed.message());
      }
      std::move(done)(absl::Status(failed.code(), failed.message()),
                      std::move(per_write));
      return;
    }
    Store(accepted);
    // After the store's lock is released (Store returned), before the
    // callback: a writer that saw its callback knows live queries woke.
    if (!accepted.empty()) store_->notifier.Notify();
    std::move(done)(absl::OkStatus(), std::move(per_write));
  });
}

void InMemoryJournal::Store(std::vector<Accepted>& writes) {
  base::MutexLock lock(&store_->mu);
  for (Accepted& a : writes) {
    // A rejected write stored nothing but used its numbers.
    InMemoryStore::Stream& stream = store_->streams[a.persistence_id];
    stream.highest = a.last;
    if (!stream.listed) {
      stream.listed = true;
      store_->persistence_ids.push_back(a.persistence_id);
    }
    for (StoredEvent& event : a.events) {
      if (!event.tags.empty()) {
        int64_t offset = ++store_->last_tag_offset;
        for (const std::string& tag : event.tags) {
          // Braces: clang has no parenthesized aggregate initialization.
          store_->tags[tag].try_emplace(
              offset,
              InMemoryStore::TagEntry{a.persistence_id, event.sequence_nr});
        }
      }
      stream.events.insert_or_assign(event.sequence_nr, std::move(event));
    }
  }
}

absl::Status InMemoryJournal::CheckSequence(
    const std::vector<Accepted>& writes) const {
  // The highest of each stream as the writes before in this call leave it.
  absl::flat_hash_map<std::string_view, int64_t> highest;
  for (const Accepted& a : writes) {
    auto [it, inserted] = highest.try_emplace(a.persistence_id, 0);
    if (inserted) {
      auto stream = store_->streams.find(a.persistence_id);
      if (stream != store_->streams.end()) {
        it->second = stream->second.highest;
      }
    }
    absl::Status follows =
        CheckFollows(a.persistence_id, it->second, a.first, a.last);
    if (!follows.ok()) return follows;
    it->second = a.last;
  }
  return absl::OkStatus();
}

void InMemoryJournal::AsyncReplayMessages(std::string persistence_id,
                                          int64_t from_sequence_nr,
                                          int64_t to_sequence_nr, int64_t max,
                                          ReplayCallback on_event,
                                          DoneCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id),
                from_sequence_nr, to_sequence_nr, max,
                on_event = std::move(on_event),
                done = std::move(done)]() mutable {
    std::move(done)(Replay(persistence_id, from_sequence_nr, to_sequence_nr,
                           max, on_event));
  });
}

absl::Status InMemoryJournal::Replay(const std::string& persistence_id,
                                     int64_t from, int64_t to, int64_t max,
                                     ReplayCallback& on_event) const {
  auto stream = store_->streams.find(persistence_id);
  if (stream == store_->streams.end() || max <= 0 || from > to) {
    return absl::OkStatus();
  }
  int64_t delivered = 0;
  const auto& events = stream->second.events;
  for (auto it = events.lower_bound(from);
       it != events.end() && it->first <= to && delivered < max;
       ++it, ++delivered) {
    absl::StatusOr<PersistentRepr> repr =
        DecodeStoredEvent(*registry_, persistence_id, it->second);
    if (!repr.ok()) return repr.status();
    on_event(*repr);
  }
  return absl::OkStatus();
}

void InMemoryJournal::AsyncReadHighestSequenceNr(std::string persistence_id,
                                                 int64_t /*from_sequence_nr*/,
                                                 HighestCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id),
                done = std::move(done)]() mutable {
    std::move(done)(Highest(persistence_id));
  });
}

int64_t InMemoryJournal::Highest(const std::string& persistence_id) const {
  auto stream = store_->streams.find(persistence_id);
  return stream == store_->streams.end() ? 0 : stream->second.highest;
}

void InMemoryJournal::AsyncDeleteMessagesTo(
    std::string persistence_id, int64_t to_sequence_nr,
    std::optional<WriteFence> /*fence*/,  // one process's store (journal.h)
    DoneCallback done) {
  runner_.Post([this, persistence_id = std::move(persistence_id),
                to_sequence_nr, done = std::move(done)]() mutable {
    {
      base::MutexLock lock(&store_->mu);
      auto stream = store_->streams.find(persistence_id);
      if (stream != store_->streams.end()) {
        auto& events = stream->second.events;
        events.erase(events.begin(), events.upper_bound(to_sequence_nr));
      }
    }
    store_->notifier.Notify();
    std::move(done)(absl::OkStatus());
  });
}

}  // namespace cairn::persistence::inmem_internal
