#include "persistence/rocksdb/internal/stream_reads.h"

#include <algorithm>
#include <memory>
#include <string>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/bounded_iterator.h"
#include "persistence/rocksdb/internal/event_codec.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/metadata_codec.h"
#include "persistence/storage/plugin_support/record_check.h"
#include "rocksdb/iterator.h"

namespace cairn::persistence::rocksdb_internal {

using plugin_support::RecordError;

namespace {

absl::StatusOr<int64_t> ReadRecordedHighest(const Db::View& view,
                                            std::string_view persistence_id) {
  std::string value;
  rocksdb::Status status = view.db->Get(rocksdb::ReadOptions(), view.metadata,
                                        StreamPrefix(persistence_id), &value);
  if (status.IsNotFound()) return 0;
  if (!status.ok()) {
    return FromRocksDb(
        status, base::StrCat("reading the metadata of '", persistence_id, "'"));
  }
  return DecodeStreamMetadata(persistence_id, value);
}

absl::Status IteratorError(const rocksdb::Iterator& it,
                           std::string_view persistence_id) {
  return FromRocksDb(it.status(),
                     base::StrCat("persistence id '", persistence_id,
                                  "': reading its events"));
}

}  // namespace

namespace {

// The highest of `recorded` and the stream's last event, where `events`
// stands at that event, or past the stream's start (below `lower`, or not
// valid) if it has none.
absl::StatusOr<int64_t> HighestAt(rocksdb::Iterator& events,
                                  std::string_view persistence_id,
                                  const std::string& lower, int64_t recorded) {
  if (!events.Valid() || events.key().compare(lower) < 0) {
    if (!events.status().ok()) return IteratorError(events, persistence_id);
    return recorded;
  }
  absl::StatusOr<DecodedKey> key = DecodeRecordKey(events.key().ToStringView());
  if (!key.ok() || key->persistence_id != persistence_id) {
    return absl::DataLossError(
        base::StrCat("persistence id '", persistence_id, "': ",
                     key.ok() ? "a key of another stream in its range"
                              : key.status().message()));
  }
  return std::max(recorded, key->sequence_nr);
}

}  // namespace

absl::StatusOr<int64_t> ReadHighestSequenceNr(const Db::View& view,
                                              std::string_view persistence_id) {
  BoundedIterator events(view.db, view.events);
  return ReadHighestSequenceNr(view, events, persistence_id);
}

absl::StatusOr<int64_t> HighestSequenceNrGivenLast(
    const Db::View& view, std::string_view persistence_id,
    int64_t last_stored) {
  absl::StatusOr<int64_t> recorded = ReadRecordedHighest(view, persistence_id);
  if (!recorded.ok()) return recorded.status();
  return std::max(*recorded, last_stored);
}

absl::StatusOr<int64_t> ReadHighestSequenceNr(const Db::View& view,
                                              BoundedIterator& events,
                                              std::string_view persistence_id) {
  absl::StatusOr<int64_t> recorded = ReadRecordedHighest(view, persistence_id);
  if (!recorded.ok()) return recorded.status();
  const std::string lower = StreamPrefix(persistence_id);
  rocksdb::Iterator& it = events.Within(lower, StreamEnd(persistence_id));
  it.SeekToLast();
  return HighestAt(it, persistence_id, lower, *recorded);
}

absl::Status ReadEvents(const Db::View& view,
                        const serialization::SerializationRegistry& registry,
                        std::string_view persistence_id, int64_t from,
                        int64_t to, size_t limit,
                        absl::FunctionRef<PersistentRepr&()> next_slot) {
  BoundedIterator events(view.db, view.events);
  return ReadEvents(view, events, registry, persistence_id, from, to, limit,
                    next_slot);
}

namespace {

// The stream's verified records with from <= sequence_nr <= to, in order,
// at most `limit`, each given to `take` (which may stop the scan with an
// error); see ReadEvents.
absl::Status ScanEvents(
    const Db::View& view, BoundedIterator& cursor,
    std::string_view persistence_id, int64_t from, int64_t to, size_t limit,
    bool* range_ended,
    absl::FunctionRef<absl::Status(int64_t sequence_nr, const EventView& event)>
        take) {
  if (range_ended != nullptr) *range_ended = false;
  from = std::max<int64_t>(from, 1);
  if (limit == 0) return absl::OkStatus();
  if (from > to) {
    if (range_ended != nullptr) *range_ended = true;
    return absl::OkStatus();
  }
  const std::string lower = RecordKey(persistence_id, from);
  const std::string upper = KeyAfter(persistence_id, to);
  rocksdb::Iterator& events = cursor.Within(lower, upper);
  ManifestMemo manifest;
  size_t read = 0;
  // Where the scan stands: the first sequence number not yet delivered.
  int64_t next = from;
  // No step past the limit's last event: it would read a block for nothing.
  for (events.Seek(lower); events.Valid() && events.key().compare(upper) < 0;
       events.Next()) {
    absl::StatusOr<DecodedKey> key =
        DecodeRecordKey(events.key().ToStringView());
    if (!key.ok() || key->persistence_id != persistence_id) {
      return absl::DataLossError(
          base::StrCat("persistence id '", persistence_id, "': ",
                       key.ok() ? "a key of another stream in its range"
                                : key.status().message()));
    }
    absl::StatusOr<EventView> event =
        DecodeEvent(view, persistence_id, key->sequence_nr,
                    events.value().ToStringView(), &manifest);
    if (!event.ok()) return event.status();
    if (absl::Status taken = take(key->sequence_nr, *event); !taken.ok()) {
      return taken;
    }
    next = key->sequence_nr + 1;
    if (++read == limit) return absl::OkStatus();
  }
  if (!events.status().ok()) {
    // RocksDB found damage below the records (a block checksum, a missing
    // file) and cannot say which record it hit: name where the replay
    // stands, which is where it stops.
    absl::Status cause =
        FromRocksDb(events.status(), "the events from here on cannot be read");
    return RecordError(persistence_id, next, cause);
  }
  if (range_ended != nullptr) *range_ended = true;
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadEvents(const Db::View& view, BoundedIterator& cursor,
                        const serialization::SerializationRegistry& registry,
                        std::string_view persistence_id, int64_t from,
                        int64_t to, size_t limit,
                        absl::FunctionRef<PersistentRepr&()> next_slot,
                        bool* range_ended) {
  return ScanEvents(
      view, cursor, persistence_id, from, to, limit, range_ended,
      [&](int64_t sequence_nr, const EventView& event) -> absl::Status {
        absl::StatusOr<serialization::Payload> payload = registry.Deserialize(
            event.serializer_id, event.manifest, event.payload);
        if (!payload.ok()) {
          return RecordError(persistence_id, sequence_nr, payload.status());
        }
        PersistentRepr& repr = next_slot();
        repr.persistence_id.assign(persistence_id);
        repr.sequence_nr = sequence_nr;
        repr.payload = *std::move(payload);
        repr.manifest.assign(event.manifest);
        repr.adapter_manifest.assign(event.adapter_manifest);
        event.WriterUuid(repr.writer_uuid);
        repr.timestamp = event.timestamp;
        repr.tags.assign(event.tags.begin(), event.tags.end());
        return absl::OkStatus();
      });
}

absl::Status ReadSerializedEvents(const Db::View& view, BoundedIterator& cursor,
                                  std::string_view persistence_id, int64_t from,
                                  int64_t to, size_t limit, ReplayPage& page,
                                  bool* range_ended) {
  return ScanEvents(
      view, cursor, persistence_id, from, to, limit, range_ended,
      [&](int64_t sequence_nr, const EventView& event) -> absl::Status {
        page.AddSerialized(sequence_nr, event.serializer_id, event.manifest,
                           event.payload);
        return absl::OkStatus();
      });
}

}  // namespace cairn::persistence::rocksdb_internal
