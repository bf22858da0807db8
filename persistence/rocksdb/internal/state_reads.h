#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_READS_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_READS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/state_codec.h"
#include "persistence/storage/durable_state_store.h"
#include "rocksdb/options.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The durable state store's reads (state_codec.h has the layout), within
// one Db::Read or Db::Write visit. A store without the state column
// families (a read-only or secondary open of an older store) has no
// durable state: every id reads as never written.

// The verified record of `persistence_id` in `*record`, its views into
// `value` (the caller's buffer); nullopt if the id has none. Errors name
// the id.
absl::Status ReadStateRecord(const Db::View& view,
                             std::string_view persistence_id,
                             const rocksdb::ReadOptions& options,
                             std::string& value,
                             std::optional<StateRecord>& record);

// The highest offset given so far (0: none).
absl::StatusOr<int64_t> ReadHighestStateOffset(const Db::View& view);

// AsyncGetObject's result: the value deserialized by `registry`. DataLoss
// naming the id and revision if it cannot be.
absl::StatusOr<DurableStateObject> ReadDurableState(
    const Db::View& view, const serialization::SerializationRegistry& registry,
    std::string_view persistence_id);

// AsyncCurrentChanges's result into `out`: one scan of `tag`'s index range
// above `after_offset`, each entry's record read at the same RocksDB
// snapshot, so that the index and the records agree; a deleted record's
// entry (a tombstone) is a change with `deleted` and no value. An entry
// whose record does not have its tag and offset (they are written in one
// batch, so only damage does that) is DataLoss naming the tag, offset and
// id.
absl::Status ReadStateChanges(
    const Db::View& view, const serialization::SerializationRegistry& registry,
    std::string_view tag, int64_t after_offset, int64_t max,
    std::vector<DurableStateChange>& out);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STATE_READS_H_
