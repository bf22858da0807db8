#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_READ_JOURNAL_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_READ_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/plugin_support/live_stream.h"
#include "persistence/storage/read_journal.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The RocksDB plugin's queries (read_journal.h) on a database the journal
// writes. Each Pull is one bounded read (at most `max` elements, one
// visit) on the read journal's own thread, so queries never hold up the
// journal's replays. A query is "current" as of its first Pull: it reads
// up to the highest tag offset (or sequence number, or id offset of the id
// log) committed then. On a store without an id log (a read-only or
// secondary open of an older store), CurrentPersistenceIds lists the ids
// in key order page by page: a read-only open sees no new ids, but a
// secondary's catch-up between two Pulls may add some that sort after the
// last one delivered.
//
// Each query is a cursor of plugin_support's QueryHub, which parks a live
// Pull that finds nothing new until the journal's writer (or a secondary's
// catch-up) notifies a commit (Db::commits()).
//
// Life cycle: read_journal.h's and QueryHub's (the destructor cancels the
// parked Pulls and completes the Pulls in flight, running their
// callbacks).

class RocksDbReadJournal final : public ReadJournal {
 public:
  RocksDbReadJournal(
      std::shared_ptr<Db> db,
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  // Cancels the live queries' parked Pulls, then completes what is posted.
  ~RocksDbReadJournal() override;

  // Reads the id log up to its highest id offset at the first Pull, in
  // creation order (key order without a log).
  std::unique_ptr<QueryStream<std::string>> CurrentPersistenceIds() override;
  // Tails the id log (id_log.h); a store without one (read-only or
  // secondary open of an older store): the current ids, then
  // FailedPrecondition.
  std::unique_ptr<QueryStream<std::string>> PersistenceIds() override;
  std::unique_ptr<QueryStream<EventEnvelope>> CurrentEventsByPersistenceId(
      std::string persistence_id, int64_t from_sequence_nr,
      int64_t to_sequence_nr) override;
  std::unique_ptr<QueryStream<EventEnvelope>> CurrentEventsByTag(
      std::string tag, int64_t offset) override;
  std::unique_ptr<QueryStream<EventEnvelope>> EventsByPersistenceId(
      std::string persistence_id, int64_t from_sequence_nr,
      int64_t to_sequence_nr) override;
  std::unique_ptr<QueryStream<EventEnvelope>> EventsByTag(
      std::string tag, int64_t offset) override;

 private:
  const std::shared_ptr<Db> db_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  plugin_support::QueryHub hub_;  // last: destroyed (drained) first
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_READ_JOURNAL_H_
