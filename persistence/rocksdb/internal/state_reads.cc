#include "persistence/rocksdb/internal/state_reads.h"

#include <limits>
#include <memory>
#include <utility>

#include "base/string_view.h"
#include "rocksdb/iterator.h"
#include "rocksdb/snapshot.h"

namespace cairn::persistence::rocksdb_internal {

namespace {

// The stored value of a record, as the in-memory store words it.
absl::StatusOr<serialization::Payload> Deserialize(
    const serialization::SerializationRegistry& registry,
    std::string_view persistence_id, const StateRecord& record) {
  absl::StatusOr<serialization::Payload> value = registry.Deserialize(
      record.serializer_id, record.manifest, record.payload);
  if (value.ok()) return value;
  return absl::DataLossError(base::StrCat(
      "durable state of persistence id '", persistence_id, "' at revision ",
      record.revision, " cannot be read: ", value.status().message()));
}

// For an index entry that does not match its record: what the record says.
std::string WhatIsStored(const std::optional<StateRecord>& record) {
  if (!record.has_value()) return "record is missing";
  if (record->offset == 0) return "deleted value has no index entry";
  return base::StrCat(record->has_value ? "value" : "delete", " is at offset ",
                      record->offset, " under tag '", record->tag, "'");
}

}  // namespace

absl::Status ReadStateRecord(const Db::View& view,
                             std::string_view persistence_id,
                             const rocksdb::ReadOptions& options,
                             std::string& value,
                             std::optional<StateRecord>& record) {
  record.reset();
  if (view.state == nullptr) return absl::OkStatus();
  rocksdb::Status got =
      view.db->Get(options, view.state, StateKey(persistence_id), &value);
  if (got.IsNotFound()) return absl::OkStatus();
  if (!got.ok()) {
    return StateError(persistence_id, FromRocksDb(got, "reading its record"));
  }
  absl::StatusOr<StateRecord> decoded = DecodeState(persistence_id, value);
  if (!decoded.ok()) return decoded.status();
  record = *decoded;
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadHighestStateOffset(const Db::View& view) {
  if (view.state_tags == nullptr) return 0;
  std::string value;
  rocksdb::Status got = view.db->Get(rocksdb::ReadOptions(), view.state_tags,
                                     kHighestStateOffsetKey, &value);
  if (got.IsNotFound()) return 0;
  if (!got.ok()) {
    return FromRocksDb(got, "reading the highest durable state offset");
  }
  return DecodeStateOffset(value);
}

absl::StatusOr<DurableStateObject> ReadDurableState(
    const Db::View& view, const serialization::SerializationRegistry& registry,
    std::string_view persistence_id) {
  std::string value;
  std::optional<StateRecord> record;
  absl::Status read = ReadStateRecord(view, persistence_id,
                                      rocksdb::ReadOptions(), value, record);
  if (!read.ok()) return read;
  DurableStateObject object;
  if (!record.has_value()) return object;
  object.revision = record->revision;
  if (record->has_value) {
    absl::StatusOr<serialization::Payload> payload =
        Deserialize(registry, persistence_id, *record);
    if (!payload.ok()) return payload.status();
    object.value = *std::move(payload);
  }
  return object;
}

absl::Status ReadStateChanges(
    const Db::View& view, const serialization::SerializationRegistry& registry,
    std::string_view tag, int64_t after_offset, int64_t max,
    std::vector<DurableStateChange>& out) {
  if (view.state == nullptr || view.state_tags == nullptr || max <= 0 ||
      after_offset == std::numeric_limits<int64_t>::max()) {
    return absl::OkStatus();
  }
  // Offsets start at 1: anything lower asks for every change.
  const int64_t from = after_offset < 0 ? 1 : after_offset + 1;
  // One snapshot for the index and the records: another store object on
  // this database may write meanwhile (rocksdb_durable_state_store.h).
  rocksdb::ManagedSnapshot snapshot(view.db);
  rocksdb::ReadOptions options;
  options.snapshot = snapshot.snapshot();
  const std::string upper = StateTagEnd(tag);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions scan = options;
  scan.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      view.db->NewIterator(scan, view.state_tags));
  std::string value;
  std::optional<StateRecord> record;
  for (it->Seek(StateTagKey(tag, from));
       it->Valid() && static_cast<int64_t>(out.size()) < max; it->Next()) {
    absl::StatusOr<int64_t> offset =
        DecodeStateTagKey(tag, it->key().ToStringView());
    if (!offset.ok()) return offset.status();
    const std::string persistence_id(it->value().ToStringView());
    absl::Status read =
        ReadStateRecord(view, persistence_id, options, value, record);
    if (!read.ok()) return read;
    if (!record.has_value() || record->offset != *offset ||
        record->tag != tag) {
      return absl::DataLossError(
          base::StrCat("the durable state tag index entry of tag '", tag,
                       "' at offset ", *offset, " names persistence id '",
                       persistence_id, "', whose ", WhatIsStored(record)));
    }
    DurableStateChange change;
    change.persistence_id = persistence_id;
    change.revision = record->revision;
    change.offset = record->offset;
    change.timestamp_ms = record->timestamp_ms;
    if (record->has_value) {
      absl::StatusOr<serialization::Payload> payload =
          Deserialize(registry, persistence_id, *record);
      if (!payload.ok()) return payload.status();
      change.value = *std::move(payload);
    } else {
      change.deleted = true;  // a tombstone: no value
    }
    out.push_back(std::move(change));
  }
  if (!it->status().ok()) {
    return FromRocksDb(
        it->status(),
        base::StrCat("tag '", tag, "': reading its durable state index"));
  }
  return absl::OkStatus();
}

}  // namespace cairn::persistence::rocksdb_internal
