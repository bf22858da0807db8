#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_WRITES_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_WRITES_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "persistence/rocksdb/internal/db.h"
#include "rocksdb/write_batch.h"
#include "serialization/serializer.h"

namespace cairn::persistence::rocksdb_internal {

// The durable state store's writes (state_codec.h has the layout), as Db::
// Write builders: each reads the id's record, checks the revision
// (durable_state_store.h's rule) and fills `batch`, so that the record,
// its index entries and the highest offset change together or not at all.
// The caller must keep other state writes to the database out until the
// batch is committed (rocksdb_durable_state_store.h), or two of them could
// pass the same check, or take the same offset.
//
// FailedPrecondition naming the id, the revision written and the one
// stored if the revision is not the next; the record's error (DataLoss
// naming the id) if the stored record is damaged: its revision is unknown,
// so nothing is written over it.

// An upsert of `payload` under `tag` as revision `revision`, at the next
// offset, stored at `timestamp_ms`; it removes the id's previous index
// entry (a value's or a tombstone's).
absl::Status BuildStateUpsert(const Db::View& view, rocksdb::WriteBatch& batch,
                              std::string_view persistence_id, int64_t revision,
                              const serialization::SerializedPayload& payload,
                              std::string_view tag, int64_t timestamp_ms);

// A delete as revision `revision`, at `timestamp_ms`: the record keeps the
// revision, the tag and no value. An id with an index entry (a value, or
// an earlier delete of one) gets a tombstone at the next offset under that
// tag in its place, for CurrentChanges to report; an id without one (never
// a value) gets no entry and no offset.
absl::Status BuildStateDelete(const Db::View& view, rocksdb::WriteBatch& batch,
                              std::string_view persistence_id, int64_t revision,
                              int64_t timestamp_ms);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_WRITES_H_
