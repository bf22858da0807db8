#include "persistence/rocksdb/internal/state_writes.h"

#include <optional>
#include <string>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/state_codec.h"
#include "persistence/rocksdb/internal/state_reads.h"
#include "persistence/storage/plugin_support/durable_state_check.h"

namespace cairn::persistence::rocksdb_internal {

namespace {

// The stored record of the id in `*record` (views into `value`), if the
// revision may be written over it.
absl::Status CheckRevision(const Db::View& view,
                           std::string_view persistence_id, int64_t revision,
                           std::string& value,
                           std::optional<StateRecord>& record) {
  if (view.state == nullptr || view.state_tags == nullptr) {
    // A read-write open creates the families; Db::Write refuses the other
    // modes before building.
    return absl::FailedPreconditionError(base::StrCat(
        "RocksDB store ", view.db->GetName(),
        " has no durable state column families (opened without them)"));
  }
  absl::Status read = ReadStateRecord(view, persistence_id,
                                      rocksdb::ReadOptions(), value, record);
  if (!read.ok()) return read;
  const int64_t stored = record.has_value() ? record->revision : 0;
  if (revision == stored + 1) return absl::OkStatus();
  return plugin_support::StateRevisionConflict(persistence_id, revision,
                                               stored);
}

absl::Status Built(const rocksdb::Status& status) {
  return FromRocksDb(status, "building a durable state batch");
}

}  // namespace

absl::Status BuildStateUpsert(const Db::View& view, rocksdb::WriteBatch& batch,
                              std::string_view persistence_id, int64_t revision,
                              const serialization::SerializedPayload& payload,
                              std::string_view tag, int64_t timestamp_ms) {
  std::string old_value;
  std::optional<StateRecord> old;
  absl::Status checked =
      CheckRevision(view, persistence_id, revision, old_value, old);
  if (!checked.ok()) return checked;
  absl::StatusOr<int64_t> highest = ReadHighestStateOffset(view);
  if (!highest.ok()) return highest.status();

  StateRecord record;
  record.revision = revision;
  record.has_value = true;
  record.offset = *highest + 1;
  record.timestamp_ms = timestamp_ms;
  record.serializer_id = payload.serializer_id;
  record.manifest = payload.manifest;
  record.tag = tag;
  record.payload = payload.bytes;

  rocksdb::Status s;
  if (old.has_value() && old->offset != 0) {
    s = batch.Delete(view.state_tags, StateTagKey(old->tag, old->offset));
  }
  if (s.ok()) {
    s = batch.Put(view.state_tags, StateTagKey(tag, record.offset),
                  rocksdb::Slice(persistence_id.data(), persistence_id.size()));
  }
  if (s.ok()) {
    s = batch.Put(view.state_tags, kHighestStateOffsetKey,
                  EncodeStateOffset(record.offset));
  }
  if (s.ok()) {
    s = batch.Put(view.state, StateKey(persistence_id),
                  EncodeState(persistence_id, record));
  }
  return Built(s);
}

absl::Status BuildStateDelete(const Db::View& view, rocksdb::WriteBatch& batch,
                              std::string_view persistence_id, int64_t revision,
                              int64_t timestamp_ms) {
  std::string old_value;
  std::optional<StateRecord> old;
  absl::Status checked =
      CheckRevision(view, persistence_id, revision, old_value, old);
  if (!checked.ok()) return checked;
  StateRecord record;
  record.revision = revision;
  rocksdb::Status s;
  if (old.has_value() && old->offset != 0) {
    // A value, or a tombstone: the delete takes the next offset under the
    // tag it had, in place of its entry.
    absl::StatusOr<int64_t> highest = ReadHighestStateOffset(view);
    if (!highest.ok()) return highest.status();
    record.offset = *highest + 1;
    record.timestamp_ms = timestamp_ms;
    record.tag = old->tag;
    s = batch.Delete(view.state_tags, StateTagKey(old->tag, old->offset));
    if (s.ok()) {
      s = batch.Put(
          view.state_tags, StateTagKey(record.tag, record.offset),
          rocksdb::Slice(persistence_id.data(), persistence_id.size()));
    }
    if (s.ok()) {
      s = batch.Put(view.state_tags, kHighestStateOffsetKey,
                    EncodeStateOffset(record.offset));
    }
  }
  // `record.tag` views `old_value`, alive until the batch is built.
  if (s.ok()) {
    s = batch.Put(view.state, StateKey(persistence_id),
                  EncodeState(persistence_id, record));
  }
  return Built(s);
}

}  // namespace cairn::persistence::rocksdb_internal
