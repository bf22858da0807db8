#include "persistence/persistence_query.h"

#include <utility>

#include "base/mutex.h"
#include "persistence/persistence.h"

namespace cairn::persistence {

absl::StatusOr<ReadJournal*> PersistenceQuery::ReadJournalFor(
    std::string_view journal_plugin_id) {
  absl::StatusOr<Journal*> journal =
      Persistence::Get(system_).JournalFor(journal_plugin_id);
  if (!journal.ok()) return journal.status();
  base::MutexLock lock(&mu_);
  auto it = read_journals_.find(*journal);
  if (it != read_journals_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<ReadJournal>> made =
      (*journal)->NewReadJournal();
  if (!made.ok()) return made.status();
  ReadJournal* read_journal = made->get();
  read_journals_.emplace(*journal, *std::move(made));
  return read_journal;
}

}  // namespace cairn::persistence
