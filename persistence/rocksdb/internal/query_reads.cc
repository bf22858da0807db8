#include "persistence/rocksdb/internal/query_reads.h"

#include <memory>
#include <optional>
#include <utility>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/event_codec.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/storage/plugin_support/record_check.h"
#include "rocksdb/iterator.h"

namespace cairn::persistence::rocksdb_internal {

using plugin_support::RecordError;

absl::StatusOr<int64_t> ReadHighestTagOffset(const Db::View& view) {
  if (view.tags == nullptr) return 0;
  std::string value;
  rocksdb::Status got = view.db->Get(rocksdb::ReadOptions(), view.tags,
                                     kHighestTagOffsetKey, &value);
  if (got.IsNotFound()) return 0;
  if (!got.ok()) return FromRocksDb(got, "reading the highest tag offset");
  return DecodeTagOffset(value);
}

absl::Status ReadTaggedEvents(
    const Db::View& view, const serialization::SerializationRegistry& registry,
    std::string_view tag, int64_t after, int64_t upto, std::size_t limit,
    std::vector<EventEnvelope>& out, int64_t& scanned) {
  scanned = after;
  if (view.tags == nullptr || limit == 0 || after >= upto) {
    return absl::OkStatus();
  }
  const std::string lower = TagKey(tag, after + 1);
  const std::string upper = KeyAfter(tag, upto);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(options, view.tags));
  std::size_t delivered = 0;
  std::string record;
  for (it->Seek(lower); it->Valid() && delivered < limit; it->Next()) {
    absl::StatusOr<DecodedKey> entry =
        DecodeRecordKey(it->key().ToStringView());
    if (!entry.ok() || entry->persistence_id != tag) {
      return absl::DataLossError(
          base::StrCat("tag '", tag, "': ",
                       entry.ok() ? "an index entry of another tag in its range"
                                  : entry.status().message()));
    }
    absl::StatusOr<DecodedKey> event_key =
        DecodeRecordKey(it->value().ToStringView());
    if (!event_key.ok()) {
      return absl::DataLossError(
          base::StrCat("tag '", tag, "', offset ", entry->sequence_nr,
                       ": the index entry names no event (",
                       event_key.status().message(), ")"));
    }
    rocksdb::Status got =
        view.db->Get(rocksdb::ReadOptions(), view.events, it->value(), &record);
    scanned = entry->sequence_nr;
    if (got.IsNotFound()) continue;  // the event is deleted
    if (!got.ok()) {
      return RecordError(event_key->persistence_id, event_key->sequence_nr,
                         FromRocksDb(got, "reading a tagged event"));
    }
    absl::StatusOr<EventView> event = DecodeEvent(
        view, event_key->persistence_id, event_key->sequence_nr, record);
    if (!event.ok()) return event.status();
    absl::StatusOr<serialization::Payload> payload = registry.Deserialize(
        event->serializer_id, event->manifest, event->payload);
    if (!payload.ok()) {
      return RecordError(event_key->persistence_id, event_key->sequence_nr,
                         payload.status());
    }
    EventEnvelope& envelope = out.emplace_back();
    envelope.offset = entry->sequence_nr;
    envelope.persistence_id = std::string(event_key->persistence_id);
    envelope.sequence_nr = event_key->sequence_nr;
    envelope.event = *std::move(payload);
    envelope.timestamp = event->timestamp;
    envelope.tags.assign(event->tags.begin(), event->tags.end());
    envelope.adapter_manifest = std::string(event->adapter_manifest);
    ++delivered;
  }
  if (!it->status().ok()) {
    return FromRocksDb(it->status(),
                       base::StrCat("tag '", tag, "': reading its index"));
  }
  // Every entry up to `upto` was looked at: nothing is left to skip.
  if (delivered < limit) scanned = upto;
  return absl::OkStatus();
}

absl::Status ReadPersistenceIds(const Db::View& view, std::string_view after,
                                std::size_t limit,
                                std::vector<std::string>& out) {
  // Two sorted sources, merged: the streams with events (one key range
  // each, skipped over with a seek) and those with recorded metadata.
  std::unique_ptr<rocksdb::Iterator> events(
      view.db->NewIterator(rocksdb::ReadOptions(), view.events));
  std::unique_ptr<rocksdb::Iterator> metadata(
      view.db->NewIterator(rocksdb::ReadOptions(), view.metadata));
  if (after.empty()) {
    events->SeekToFirst();
    metadata->SeekToFirst();
  } else {
    events->Seek(StreamEnd(after));
    std::string past = StreamPrefix(after);
    past.push_back('\0');
    metadata->Seek(past);
  }
  while (out.size() < limit) {
    std::optional<std::string_view> in_events;
    std::optional<std::string_view> in_metadata;
    if (events->Valid()) {
      absl::StatusOr<DecodedKey> key =
          DecodeRecordKey(events->key().ToStringView());
      if (!key.ok()) return key.status();
      in_events = key->persistence_id;
    }
    if (metadata->Valid()) {
      absl::StatusOr<std::string_view> id =
          DecodeStreamPrefix(metadata->key().ToStringView());
      if (!id.ok()) return id.status();
      in_metadata = *id;
    }
    if (!in_events && !in_metadata) break;
    // Key order: the stream prefixes compare as the keys do.
    std::string id;
    if (in_events && in_metadata) {
      const std::string e = StreamPrefix(*in_events);
      const std::string m = StreamPrefix(*in_metadata);
      id = std::string(e <= m ? *in_events : *in_metadata);
      if (e == m || e < m) events->Seek(StreamEnd(*in_events));
      if (e == m || m < e) metadata->Next();
    } else if (in_events) {
      id = std::string(*in_events);
      events->Seek(StreamEnd(*in_events));
    } else {
      id = std::string(*in_metadata);
      metadata->Next();
    }
    out.push_back(std::move(id));
  }
  if (!events->status().ok()) {
    return FromRocksDb(events->status(), "listing persistence ids");
  }
  if (!metadata->status().ok()) {
    return FromRocksDb(metadata->status(), "listing persistence ids");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<int64_t>> ReadHighestIdOffset(
    const Db::View& view) {
  if (view.ids == nullptr) return std::nullopt;
  std::string value;
  rocksdb::Status got = view.db->Get(rocksdb::ReadOptions(), view.ids,
                                     kHighestIdOffsetKey, &value);
  if (got.IsNotFound()) return std::nullopt;
  if (!got.ok()) return FromRocksDb(got, "reading the highest id offset");
  absl::StatusOr<int64_t> offset = DecodeIdOffset(value);
  if (!offset.ok()) return offset.status();
  return *offset;
}

absl::Status ReadIdLog(const Db::View& view, int64_t after, int64_t upto,
                       std::size_t limit, std::vector<std::string>& out,
                       int64_t& last) {
  last = after;
  if (view.ids == nullptr) {
    return absl::FailedPreconditionError("the store has no id log");
  }
  if (limit == 0 || after >= upto) return absl::OkStatus();
  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(rocksdb::ReadOptions(), view.ids));
  std::size_t appended = 0;
  for (it->Seek(IdLogKey(after + 1)); it->Valid() && appended < limit;
       it->Next()) {
    absl::StatusOr<int64_t> offset = DecodeIdLogKey(it->key().ToStringView());
    if (!offset.ok()) {
      return absl::DataLossError(
          base::StrCat("the id log: ", offset.status().message()));
    }
    if (*offset > upto) break;
    if (it->value().empty()) {
      return absl::DataLossError(base::StrCat(
          "the id log: the entry at id offset ", *offset, " is empty"));
    }
    out.emplace_back(it->value().ToStringView());
    last = *offset;
    ++appended;
  }
  if (!it->status().ok()) {
    return FromRocksDb(it->status(), "reading the id log");
  }
  return absl::OkStatus();
}

}  // namespace cairn::persistence::rocksdb_internal
