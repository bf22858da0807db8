#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READS_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/persistent_repr.h"
#include "persistence/storage/serialization.h"

namespace cairn::persistence::internal {

// The highest sequence number ever written for the stream: the larger of
// its last stored event's and the one its metadata recorded when events
// were deleted. 0 for an unknown stream.
absl::StatusOr<int64_t> ReadHighestSequenceNr(const Db::View& view,
                                              std::string_view persistence_id);

// Appends to `out` up to `limit` events of the stream with
// from <= sequence_nr <= to, in order, each verified and deserialized
// through `registry`. On the first record that cannot be used it stops and
// returns why (naming the persistence id and sequence number); the events
// before it are in `out`.
absl::Status ReadEvents(const Db::View& view,
                        const SerializationRegistry& registry,
                        std::string_view persistence_id, int64_t from,
                        int64_t to, size_t limit,
                        std::vector<PersistentRepr>& out);

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READS_H_
