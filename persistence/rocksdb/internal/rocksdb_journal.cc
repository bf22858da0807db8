#include "persistence/rocksdb/internal/rocksdb_journal.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "persistence/rocksdb/internal/event_codec.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/rocksdb_read_journal.h"
#include "persistence/storage/plugin_support/atomic_write_check.h"
#include "persistence/storage/plugin_support/record_check.h"

namespace cairn::persistence::rocksdb_internal {

using plugin_support::CheckAtomicWrite;
using plugin_support::InFlightWrites;
using plugin_support::RecordError;

namespace {

// The records of one well-formed AtomicWrite into `pending.records[index]`
// and `pending.bytes`, or why it is rejected (then nothing of it stays);
// the numbers of the manifests they use whose entries must go with them go
// to `pending.manifests`.
absl::Status Encode(const serialization::SerializationRegistry& registry,
                    ManifestTable& manifest_table, const AtomicWrite& write,
                    size_t index, PendingWrite& pending) {
  absl::InlinedVector<EncodedRecord, 1>& records = pending.records[index];
  records.reserve(write.events.size());
  const size_t first_byte = pending.bytes.size();
  for (const PersistentRepr& event : write.events) {
    absl::StatusOr<serialization::SerializedPayload> payload =
        registry.Serialize(event.payload);
    if (!payload.ok()) {
      records.clear();
      pending.bytes.resize(first_byte);
      return RecordError(event.persistence_id, event.sequence_nr,
                         payload.status());
    }
    const ManifestRef manifest = manifest_table.NumberOf(payload->manifest);
    if (manifest.unstored &&
        std::find(pending.manifests.begin(), pending.manifests.end(),
                  manifest.number) == pending.manifests.end()) {
      pending.manifests.push_back(manifest.number);
    }
    EncodedRecord& record = records.emplace_back();
    record.offset = pending.bytes.size();
    AppendRecordKey(event.persistence_id, event.sequence_nr, pending.bytes);
    record.key_size = pending.bytes.size() - record.offset;
    AppendEncodedEvent(event, *payload, manifest.number, pending.bytes);
    record.value_size = pending.bytes.size() - record.offset - record.key_size;
    record.tags = event.tags;
    pending.encoded_bytes += pending.bytes.size() - record.offset + 16;
  }
  return absl::OkStatus();
}

// What the events of `writes` take in PendingWrite::bytes, their payloads
// guessed: the buffer then grows at most a few times.
size_t BytesToReserve(const std::vector<AtomicWrite>& writes) {
  constexpr size_t kFieldsAndKey = 64;
  constexpr size_t kPayloadGuess = 64;
  size_t bytes = 0;
  for (const AtomicWrite& write : writes) {
    for (const PersistentRepr& event : write.events) {
      bytes += event.persistence_id.size() + event.writer_uuid.size() +
               event.adapter_manifest.size() + kFieldsAndKey + kPayloadGuess;
    }
  }
  return bytes;
}

}  // namespace

RocksDbJournal::RocksDbJournal(
    std::shared_ptr<Db> db,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : attachment_(std::move(db)),
      db_(*attachment_.db),
      registry_(std::move(registry)),
      reads_(db_, registry_, db_.options().reader_threads),
      // A read let go is queued at once, on the thread that lets it go; the
      // queue's reader threads serve it.
      in_flight_([](InFlightWrites::Read read) { std::move(read)(); }),
      writer_(attachment_.db, in_flight_) {}

RocksDbJournal::~RocksDbJournal() = default;

void RocksDbJournal::AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                        WriteCallback done) {
  writer_.Submit(Prepare(std::move(writes), std::move(done)));
}

void RocksDbJournal::WriteMessagesNowOrLater(std::vector<AtomicWrite> writes,
                                             WriteCallback done) {
  PendingWrite pending = Prepare(std::move(writes), std::move(done));
  // A synced commit takes milliseconds: never on a caller's thread.
  if (db_.options().fsync) {
    writer_.Submit(std::move(pending));
  } else {
    writer_.CommitNowOrSubmit(std::move(pending));
  }
}

PendingWrite RocksDbJournal::Prepare(std::vector<AtomicWrite> writes,
                                     WriteCallback done) {
  PendingWrite pending;
  pending.records.resize(writes.size());
  pending.bytes.reserve(BytesToReserve(writes));
  pending.per_write.reserve(writes.size());
  pending.claims.reserve(writes.size());
  // The streams this call stores to (events, or for a rejected write the
  // highest sequence number). Usually one id: inline.
  for (size_t i = 0; i < writes.size(); ++i) {
    pending.failed = CheckAtomicWrite(writes[i]);
    if (!pending.failed.ok()) break;  // the writer fails it, in its turn
    pending.per_write.push_back(
        Encode(*registry_, db_.manifests(), writes[i], i, pending));
    const std::vector<PersistentRepr>& events = writes[i].events;
    pending.claims.push_back({events.front().persistence_id,
                              events.front().sequence_nr,
                              events.back().sequence_nr});
    const std::string& id = pending.claims.back().persistence_id;
    if (pending.held_ids.empty() || pending.held_ids.back() != id) {
      pending.held_ids.push_back(id);
    }
  }
  if (!pending.failed.ok()) {
    pending.per_write.assign(writes.size(), absl::OkStatus());
    pending.held_ids.clear();
  } else if (!pending.held_ids.empty()) {
    // Begun before the writer has it, so that it cannot end first.
    pending.held_ticket = in_flight_.Begin(pending.held_ids);
  }
  pending.done = std::move(done);
  return pending;
}

void RocksDbJournal::AsyncReplayMessages(std::string persistence_id,
                                         int64_t from_sequence_nr,
                                         int64_t to_sequence_nr, int64_t max,
                                         ReplayCallback on_event,
                                         DoneCallback done) {
  // A copy for StartRead: the read takes the original along.
  const std::string id = persistence_id;
  in_flight_.StartRead(id, [this, persistence_id = std::move(persistence_id),
                            from_sequence_nr, to_sequence_nr, max,
                            on_event = std::move(on_event),
                            done = std::move(done)]() mutable {
    reads_.AddReplay(std::move(persistence_id), from_sequence_nr,
                     to_sequence_nr, max, std::move(on_event), std::move(done));
  });
}

void RocksDbJournal::AsyncReplayPage(std::string persistence_id,
                                     int64_t from_sequence_nr,
                                     int64_t to_sequence_nr, int64_t max,
                                     ReplayPageCallback done) {
  const std::string id = persistence_id;  // as in AsyncReplayMessages
  in_flight_.StartRead(
      id, [this, persistence_id = std::move(persistence_id), from_sequence_nr,
           to_sequence_nr, max, done = std::move(done)]() mutable {
        reads_.AddReplayPage(std::move(persistence_id), from_sequence_nr,
                             to_sequence_nr, max, std::move(done));
      });
}

void RocksDbJournal::AsyncReadHighestSequenceNr(std::string persistence_id,
                                                int64_t /*from_sequence_nr*/,
                                                HighestCallback done) {
  const std::string id = persistence_id;  // as in AsyncReplayMessages
  in_flight_.StartRead(id, [this, persistence_id = std::move(persistence_id),
                            done = std::move(done)]() mutable {
    reads_.AddHighest(std::move(persistence_id), std::move(done));
  });
}

void RocksDbJournal::AsyncStartRecovery(RecoveryStartRequest request,
                                        ReplayCallback on_event,
                                        RecoveryStartCallback done) {
  // The snapshot comes from this database only if the store is the
  // snapshot store on it, and none of the stream's snapshot writes is in
  // flight on that store's thread (which a load through it would wait
  // for). Otherwise the snapshot store loads it.
  const bool load_snapshot = request.snapshots != nullptr;
  if (load_snapshot &&
      (request.snapshots->ColocationKey() != static_cast<const void*>(&db_) ||
       db_.snapshot_writes().InFlight(request.persistence_id))) {
    Journal::AsyncStartRecovery(std::move(request), std::move(on_event),
                                std::move(done));
    return;
  }
  const std::string id = request.persistence_id;  // as in AsyncReplayMessages
  request.snapshots = nullptr;                    // only good during this call
  in_flight_.StartRead(
      id, [this, request = std::move(request), load_snapshot,
           on_event = std::move(on_event), done = std::move(done)]() mutable {
        reads_.AddRecovery(std::move(request), load_snapshot,
                           std::move(on_event), std::move(done));
      });
}

absl::StatusOr<std::unique_ptr<ReadJournal>> RocksDbJournal::NewReadJournal() {
  return std::unique_ptr<ReadJournal>(
      std::make_unique<RocksDbReadJournal>(attachment_.db, registry_));
}

void RocksDbJournal::AsyncDeleteMessagesTo(
    std::string persistence_id, int64_t to_sequence_nr,
    std::optional<WriteFence> /*fence*/,  // one process's store (journal.h)
    DoneCallback done) {
  // A replay after a delete must not deliver the events it deletes, so a
  // delete holds reads back like a write.
  const InFlightWrites::Ticket ticket =
      in_flight_.Begin(absl::MakeConstSpan(&persistence_id, 1));
  std::string id = persistence_id;
  writer_.Submit(
      PendingDelete{std::move(persistence_id), to_sequence_nr,
                    [this, id = std::move(id), ticket,
                     done = std::move(done)](absl::Status status) mutable {
                      in_flight_.End(absl::MakeConstSpan(&id, 1), ticket);
                      std::move(done)(std::move(status));
                    }});
}

}  // namespace cairn::persistence::rocksdb_internal
