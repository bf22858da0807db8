#ifndef CAIRN_PERSISTENCE_PERSISTENCE_QUERY_H_
#define CAIRN_PERSISTENCE_PERSISTENCE_QUERY_H_

#include <map>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "base/mutex.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/read_journal.h"

namespace cairn::persistence {

// The queries of an ActorSystem's journals (Akka's PersistenceQuery):
//
//   absl::StatusOr<ReadJournal*> queries =
//       PersistenceQuery::Get(system).ReadJournalFor("");
//   auto stream = (*queries)->CurrentEventsByTag("deposits", offset);
//   stream->Pull(100, [](auto batch) { ... });
//
// From code that is not an actor (main(), a tool), CollectAll
// (persistence/storage/collect_query.h) reads a current query to its end,
// blocking; an actor reads one through a QuerySource (query_source.h).
//
// A plugin's read journal reads the store its journal writes (the events
// through the plugin's event adapters, as a replay sees them): the current
// queries and the live EventsByTag and EventsByPersistenceId
// (read_journal.h).
//
// Life cycle: a read journal lives as long as the system (destroyed with
// it, after every actor stopped); the streams made from it must be
// destroyed before that. Thread safety: any thread.
class PersistenceQuery {
 public:
  explicit PersistenceQuery(actor::ActorSystem& system) : system_(system) {}
  PersistenceQuery(const PersistenceQuery&) = delete;
  PersistenceQuery& operator=(const PersistenceQuery&) = delete;

  static PersistenceQuery& Get(actor::ActorSystem& system) {
    return system.GetExtension<PersistenceQuery>();
  }

  // The queries of the journal plugin `journal_plugin_id` (empty: the
  // default journal), made by the first call. The one blocking call: it
  // waits for the journal plugin to be made (RocksDB opened). NotFound for
  // an unknown id; Unimplemented for a plugin without queries; the
  // plugin's error if it cannot be made, which is not remembered (the next
  // call tries again).
  absl::StatusOr<ReadJournal*> ReadJournalFor(
      std::string_view journal_plugin_id);

 private:
  actor::ActorSystem& system_;
  base::Mutex mu_;
  // By the journal they read (Persistence::JournalFor gives one per
  // plugin, whatever name chose it).
  std::map<Journal*, std::unique_ptr<ReadJournal>> read_journals_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_PERSISTENCE_QUERY_H_
