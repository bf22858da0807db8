#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_READ_JOURNAL_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_READ_JOURNAL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/postgresql/internal/postgres_listener.h"
#include "persistence/storage/plugin_support/commit_notifier.h"
#include "persistence/storage/plugin_support/live_stream.h"
#include "persistence/storage/read_journal.h"
#include "serialization/serialization.h"

namespace cairn::persistence::postgres_internal {

struct PgReadJournalSettings {
  PgConnectionSettings connection;
  PgReconnectBackoff backoff;
  // Threads, each with a connection of its own while it reads, for the
  // Pulls of all the read journal's streams (at least 1).
  int threads = 2;
  // Rows one Pull reads at most (and at most its `max`).
  int page_rows = 500;
  // How long a live query that has delivered everything waits for a commit
  // of this process's journal before it reads again anyway, to see the
  // commits of other processes; zero: it waits for this process's commits
  // only.
  absl::Duration refresh_interval = absl::Seconds(1);
  // Whether live queries also hear the commits of every process writing to
  // the schema (the journal's pg_notify on PgEventsChannel): the first read
  // of a live query starts a listener (PgCommitListener, a connection of
  // its own), and each notification wakes every waiting live query at
  // once; refresh_interval stays, for a notification missed. False: other
  // processes' commits come by refresh_interval only.
  bool live_notify = true;
  // How the listener connects (PgListenerOptions::connect):
  // PgConnection::Connect, or a test's wrapper, which may refuse.
  PgListenerOptions::Connect listen_connect = PgConnection::Connect;
};

// What the read journal's queries share (settings, serialization, the
// pool): in the .cc file.
struct PgQueryReader;

// The queries (read_journal.h) of a PostgreSQL journal's schema
// (docs/POSTGRESQL.md, "Queries"), made by PostgresJournal::NewReadJournal.
//
// Each Pull is one statement on a connection of the read journal's own
// pool, run on one of its threads: at most min(max, page_rows) rows, read
// by key from where the query is (keyset paging: the tag and ordering,
// the persistence id and sequence number, or the stream's `created`), so a
// query never holds more than one page. Offsets: `ordering` for a query by
// tag, the sequence number for a query by persistence id. A current query
// notes its bound at its first Pull (the highest ordering, the stream's
// highest sequence number, the highest `created`) and completes there.
//
// The journal takes one advisory lock per schema around every write
// transaction's numbering, held to its commit, so `ordering` and `created`
// grow in commit order across processes: a query that read up to a number
// never meets a lower one committed later.
//
// Each query is a cursor of plugin_support's QueryHub: a live Pull that
// finds nothing new parks until the next commit the notifier hears of, or
// for `refresh_interval`, whichever comes first, then reads again. The
// notifier (CommitNotifier) is told of the commits of the journal that
// made this read journal, and, with `live_notify`, of every process's
// (their notifications, heard by one PgCommitListener per read journal,
// started by the first read of a live query and stopped by the
// destructor). A Pull reading when a commit is heard reads once more
// after, however many are heard meanwhile. The deadlines are kept by one
// thread of the hub that sleeps until the earliest one.
//
// Errors end the query: a lost connection (Unavailable, or the call
// timeout's DeadlineExceeded), a record that cannot be read (RecordError:
// DataLoss or NotFound naming the persistence id and sequence number).
//
// Life cycle: read_journal.h's. The read journal may outlive its journal
// (it has its own connections, and shares only the notifier). Its
// destructor stops the listener, completes every waiting Pull with
// Cancelled and runs the Pulls already made before it returns; destroying
// a stream whose Pull waits completes that Pull with Cancelled.
class PostgresReadJournal final : public ReadJournal {
 public:
  // `commits`: the journal's notifier; null: one of its own, told by the
  // listener only.
  PostgresReadJournal(
      PgReadJournalSettings settings,
      std::shared_ptr<const serialization::SerializationRegistry> registry,
      std::shared_ptr<plugin_support::CommitNotifier> commits);
  ~PostgresReadJournal() override;

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

  // Pulls parked now, waiting for a commit or the refresh interval (for
  // tests).
  std::size_t ParkedForTesting() const { return hub_.ParkedForTesting(); }

 private:
  // A stream over a new Q(reader_, args..., live).
  template <typename T, typename Q, typename... Args>
  std::unique_ptr<QueryStream<T>> Make(plugin_support::QueryMode mode,
                                       Args&&... args);

  const std::shared_ptr<plugin_support::CommitNotifier> commits_;
  const std::shared_ptr<PgQueryReader> reader_;
  // Declared last so that it is destroyed first, while the rest lives.
  plugin_support::QueryHub hub_;
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_READ_JOURNAL_H_
