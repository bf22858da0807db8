#ifndef CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_READ_JOURNAL_H_
#define CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_READ_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "persistence/inmem/internal/in_memory_journal.h"
#include "persistence/storage/plugin_support/live_stream.h"
#include "persistence/storage/read_journal.h"
#include "serialization/serialization.h"

namespace cairn::persistence::inmem_internal {

// The current and live queries of an in-memory journal's store
// (read_journal.h's contract), made by InMemoryJournal::NewReadJournal.
//
// A current query notes where the store ends at its first Pull (the
// highest sequence number, the last tag offset, the number of ids) and
// completes there. A live query (PersistenceIds reads the store's id list,
// kept in creation order, by position) reads up to where the store ends at
// each Pull. Each query is a cursor of plugin_support's QueryHub, which
// parks a live Pull that finds nothing new until the store's next commit,
// and runs every read and callback on this read journal's one thread
// ("cairn-inmem-qry"): Pulls of all its streams run one at a time. A read
// copies at most `max` serialized events under the store's lock, then
// decodes them (as a replay does, with its errors) outside it.
//
// Life cycle (live_stream.h's QueryHub): the read journal shares the store
// with its journal and may outlive it. Its destructor completes every
// parked live Pull with Cancelled and runs the Pulls already made,
// callbacks included, before it returns. Destroying a stream whose live
// Pull is parked completes that Pull with Cancelled, on this read
// journal's thread. Streams must not be pulled after their read journal's
// destructor started; destroying a stream is safe at any time, also with a
// Pull in flight (its callback still runs once) and after the read journal
// is gone.
class InMemoryReadJournal final : public ReadJournal {
 public:
  InMemoryReadJournal(
      std::shared_ptr<InMemoryStore> store,
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~InMemoryReadJournal() override;

  std::unique_ptr<QueryStream<std::string>> CurrentPersistenceIds() override;
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
  const std::shared_ptr<InMemoryStore> store_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  // Declared last so that it is destroyed first, while the rest lives.
  plugin_support::QueryHub hub_;
};

}  // namespace cairn::persistence::inmem_internal

#endif  // CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_READ_JOURNAL_H_
