#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_QUERY_READS_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_QUERY_READS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/read_journal.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The reads behind the RocksDB plugin's queries (RocksDbReadJournal), each
// one bounded visit to the database.

// The highest tag offset committed; 0 if no event was ever tagged (or the
// store has no tags column family).
absl::StatusOr<int64_t> ReadHighestTagOffset(const Db::View& view);

// Appends to `out` the events tagged `tag` with after < offset <= upto,
// ascending, at most `limit` of them, read through `registry`. Index
// entries whose event is deleted are skipped. `scanned` becomes the last
// offset looked at (at least `after`), so that a next read resumes behind
// skipped entries too. A record that cannot be read stops the read with
// why, naming its persistence id and sequence number; the events before
// it are in `out`.
absl::Status ReadTaggedEvents(
    const Db::View& view, const serialization::SerializationRegistry& registry,
    std::string_view tag, int64_t after, int64_t upto, std::size_t limit,
    std::vector<EventEnvelope>& out, int64_t& scanned);

// Appends to `out` up to `limit` persistence ids that sort after `after`
// (in key order; all when `after` is empty): every stream with an event
// stored, or with a highest sequence number recorded (its events deleted,
// or a rejected write), each once.
absl::Status ReadPersistenceIds(const Db::View& view, std::string_view after,
                                std::size_t limit,
                                std::vector<std::string>& out);

// The highest id offset committed (0: no id yet), or nullopt if the store
// has no id log: no ids column family (a read-only or secondary open of a
// store written before it), or one not back-filled yet (id_log.h).
absl::StatusOr<std::optional<int64_t>> ReadHighestIdOffset(
    const Db::View& view);

// Appends to `out` up to `limit` persistence ids of the id log with
// after < id offset <= upto, ascending, and sets `last` to the offset of
// the last one appended (`after` if none). Needs the id log (view.ids).
absl::Status ReadIdLog(const Db::View& view, int64_t after, int64_t upto,
                       std::size_t limit, std::vector<std::string>& out,
                       int64_t& last);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_QUERY_READS_H_
