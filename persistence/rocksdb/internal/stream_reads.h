#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READS_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "persistence/rocksdb/internal/bounded_iterator.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/persistent_repr.h"
#include "persistence/storage/replay_page.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The highest sequence number ever written for the stream: the larger of
// its last stored event's and the one its metadata recorded when events
// were deleted. 0 for an unknown stream.
absl::StatusOr<int64_t> ReadHighestSequenceNr(const Db::View& view,
                                              std::string_view persistence_id);
// The same through `events`, an iterator of `view.events` that reads of
// many streams share (bounded_iterator.h: the read bounds it to its stream
// and positions it, and leaves it anywhere).
absl::StatusOr<int64_t> ReadHighestSequenceNr(const Db::View& view,
                                              BoundedIterator& events,
                                              std::string_view persistence_id);

// Reads up to `limit` events of the stream with from <= sequence_nr <= to,
// in order, each verified and deserialized through `registry`, into the
// PersistentRepr `next_slot` gives for each (every field is assigned, so a
// slot reused from an earlier event keeps its strings' storage and no
// trace of it). On the first record that cannot be used it stops and
// returns why (naming the persistence id and sequence number); the events
// before it are in their slots.
absl::Status ReadEvents(const Db::View& view,
                        const serialization::SerializationRegistry& registry,
                        std::string_view persistence_id, int64_t from,
                        int64_t to, size_t limit,
                        absl::FunctionRef<PersistentRepr&()> next_slot);
// The same through `events`, an iterator of `view.events` shared as
// above. `range_ended`, if not null, tells whether the read stopped
// because [from, to] holds no more events (not at `limit`, nor at an
// error).
absl::Status ReadEvents(const Db::View& view, BoundedIterator& events,
                        const serialization::SerializationRegistry& registry,
                        std::string_view persistence_id, int64_t from,
                        int64_t to, size_t limit,
                        absl::FunctionRef<PersistentRepr&()> next_slot,
                        bool* range_ended = nullptr);

// As ReadEvents through `events`, each event verified but left serialized,
// appended to `page` (ReplayPage::AddSerialized), for its reader to
// deserialize.
absl::Status ReadSerializedEvents(const Db::View& view, BoundedIterator& events,
                                  std::string_view persistence_id, int64_t from,
                                  int64_t to, size_t limit, ReplayPage& page,
                                  bool* range_ended);

// The highest sequence number, for a caller that knows the stream's last
// stored event (`last_stored`; 0: none), e.g. from a read that reached
// the stream's end: the larger of it and what the stream's metadata
// recorded when events were deleted or rejected. One point lookup.
absl::StatusOr<int64_t> HighestSequenceNrGivenLast(
    const Db::View& view, std::string_view persistence_id, int64_t last_stored);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STREAM_READS_H_
