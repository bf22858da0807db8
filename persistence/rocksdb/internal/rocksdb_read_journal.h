#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_READ_JOURNAL_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_READ_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/plugin_support/task_runner.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/serialization.h"

namespace cairn::persistence::internal {

// The RocksDB plugin's queries (read_journal.h) on a database the journal
// writes. Each Pull is one bounded read (at most `max` elements, one
// visit) on the read journal's own thread, so queries never hold up the
// journal's replays. A query is "current" as of its first Pull: it reads
// up to the highest tag offset (or sequence number) committed then. The
// persistence ids query has no such bound: ids created while it runs may
// be delivered too.
//
// Life cycle: read_journal.h's (the destructor completes the Pulls in
// flight, running their callbacks).
class RocksDbReadJournal final : public ReadJournal {
 public:
  RocksDbReadJournal(std::shared_ptr<Db> db,
                     std::shared_ptr<const SerializationRegistry> registry);

  std::unique_ptr<QueryStream<std::string>> CurrentPersistenceIds() override;
  std::unique_ptr<QueryStream<EventEnvelope>> CurrentEventsByPersistenceId(
      std::string persistence_id, int64_t from_sequence_nr,
      int64_t to_sequence_nr) override;
  std::unique_ptr<QueryStream<EventEnvelope>> CurrentEventsByTag(
      std::string tag, int64_t offset) override;

 private:
  const std::shared_ptr<Db> db_;
  const std::shared_ptr<const SerializationRegistry> registry_;
  TaskRunner runner_;  // last: destroyed (drained) first
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_READ_JOURNAL_H_
