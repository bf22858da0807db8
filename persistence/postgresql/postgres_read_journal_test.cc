// The PostgreSQL read journal beyond the query TCK: commits of another
// process heard at once (LISTEN/NOTIFY), or seen after refresh-interval
// without notifications or a listener, the listener's life, a record that
// cannot be read, a lost connection and an unreachable server, a read
// journal outliving its journal.
#include "persistence/postgresql/internal/postgres_read_journal.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/internal/postgres_journal.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::testing {
namespace {

using ::cairn::persistence::postgres_internal::PgConnection;
using ::cairn::persistence::postgres_internal::PgConnectionSettings;
using ::cairn::persistence::postgres_internal::PgJournalSettings;
using ::cairn::persistence::postgres_internal::PgReadJournalSettings;
using ::cairn::persistence::postgres_internal::PostgresJournal;
using ::cairn::persistence::postgres_internal::PostgresReadJournal;

std::unique_ptr<PostgresJournal> OpenJournal(const std::string& conninfo,
                                             const std::string& schema,
                                             absl::Duration refresh_interval,
                                             bool live_notify = true) {
  PgJournalSettings settings;
  settings.connection.conninfo = conninfo;
  settings.connection.schema = schema;
  // The plugin's, which tells the schemas of parallel tests apart.
  settings.connection.application_name = absl::StrCat("cairn ", schema);
  settings.reader_connections = 1;
  settings.refresh_interval = refresh_interval;
  settings.live_notify = live_notify;
  // Short, so that a test waiting for a new connection waits little.
  settings.backoff.min = absl::Milliseconds(1);
  settings.backoff.max = absl::Milliseconds(10);
  absl::StatusOr<std::unique_ptr<PostgresJournal>> journal =
      PostgresJournal::Open(std::move(settings), NewTestSerialization());
  EXPECT_OK(journal);
  return journal.ok() ? *std::move(journal) : nullptr;
}

std::unique_ptr<PostgresJournal> OpenJournal(const TestDatabase& db,
                                             absl::Duration refresh_interval,
                                             bool live_notify = true) {
  return OpenJournal(db.url(), db.schema(), refresh_interval, live_notify);
}

std::unique_ptr<ReadJournal> NewReadJournal(Journal& journal) {
  absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
      journal.NewReadJournal();
  EXPECT_OK(queries);
  return queries.ok() ? *std::move(queries) : nullptr;
}

void Write(Journal& journal, const std::string& persistence_id,
           int64_t sequence_nr, std::vector<std::string> tags) {
  PersistentRepr event = Event(persistence_id, sequence_nr,
                               serialization::Payload::Of(absl::StrCat(
                                   persistence_id, "-", sequence_nr)));
  event.tags = std::move(tags);
  AtomicWrite write;
  write.events.push_back(std::move(event));
  WriteOutcome outcome = WriteMessages(journal, {std::move(write)});
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), 1u);
  ASSERT_OK(outcome.per_write[0]);
}

template <typename T>
absl::StatusOr<typename QueryStream<T>::Batch> Await(
    const std::shared_ptr<PullSlot<T>>& slot) {
  std::optional<absl::StatusOr<typename QueryStream<T>::Batch>> got =
      slot->Wait();
  if (!got.has_value()) {
    return absl::DeadlineExceededError("the Pull did not call back in time");
  }
  return *std::move(got);
}

// Waits until `count` Pulls of `queries` are parked (caught up, waiting
// for a commit or the refresh interval), up to kCallDeadline.
bool AwaitParked(const PostgresReadJournal& queries, std::size_t count) {
  const absl::Time deadline = absl::Now() + kCallDeadline;
  while (queries.ParkedForTesting() != count) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

// Another process's commit (another journal: it tells no notifier of
// this one) is announced by its pg_notify, and the live queries parked on
// it read at once: with a refresh interval of an hour, only the
// notification can deliver it within the deadline.
TEST(PostgresReadJournal, LiveQueriesHearOtherProcessesCommitsAtOnce) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::unique_ptr<PostgresJournal> other = OpenJournal(db, absl::Hours(1));
  std::unique_ptr<PostgresJournal> own = OpenJournal(db, absl::Hours(1));
  ASSERT_NE(other, nullptr);
  ASSERT_NE(own, nullptr);
  std::unique_ptr<ReadJournal> made = NewReadJournal(*own);
  auto* queries = dynamic_cast<PostgresReadJournal*>(made.get());
  ASSERT_NE(queries, nullptr);

  std::unique_ptr<QueryStream<EventEnvelope>> by_tag =
      queries->EventsByTag("t", 0);
  std::unique_ptr<QueryStream<EventEnvelope>> by_id =
      queries->EventsByPersistenceId("x", 1, 1);
  std::unique_ptr<QueryStream<std::string>> ids = queries->PersistenceIds();
  auto tag_pull = StartPull(*by_tag, 10);
  auto id_pull = StartPull(*by_id, 10);
  auto ids_pull = StartPull(*ids, 10);
  // Caught up and waiting: what comes now comes by a wake.
  ASSERT_TRUE(AwaitParked(*queries, 3));
  Write(*other, "x", 1, {"t"});

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> tagged =
      Await<EventEnvelope>(tag_pull);
  ASSERT_OK(tagged);
  ASSERT_EQ(tagged->elements.size(), 1u);
  EXPECT_EQ(tagged->elements[0].persistence_id, "x");

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> events =
      Await<EventEnvelope>(id_pull);
  ASSERT_OK(events);
  ASSERT_EQ(events->elements.size(), 1u);
  EXPECT_TRUE(events->complete);

  absl::StatusOr<QueryStream<std::string>::Batch> listed =
      Await<std::string>(ids_pull);
  ASSERT_OK(listed);
  EXPECT_EQ(listed->elements, std::vector<std::string>{"x"});

  // And again, once parked again: every commit is announced.
  tag_pull = StartPull(*by_tag, 10);
  ASSERT_TRUE(AwaitParked(*queries, 1));
  Write(*other, "y", 1, {"t"});
  tagged = Await<EventEnvelope>(tag_pull);
  ASSERT_OK(tagged);
  ASSERT_EQ(tagged->elements.size(), 1u);
  EXPECT_EQ(tagged->elements[0].persistence_id, "y");
}

// Without live-notify, another process's commits reach no notifier of
// this one: a live query that waits reads again after refresh-interval
// and delivers them.
TEST(PostgresReadJournal,
     WithoutNotificationsLiveQueriesSeeOtherProcessesCommitsAfterRefresh) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::unique_ptr<PostgresJournal> other =
      OpenJournal(db, absl::Seconds(1), /*live_notify=*/false);
  std::unique_ptr<PostgresJournal> own =
      OpenJournal(db, absl::Milliseconds(20), /*live_notify=*/false);
  ASSERT_NE(other, nullptr);
  ASSERT_NE(own, nullptr);
  std::unique_ptr<ReadJournal> queries = NewReadJournal(*own);
  ASSERT_NE(queries, nullptr);

  std::unique_ptr<QueryStream<EventEnvelope>> by_tag =
      queries->EventsByTag("t", 0);
  std::unique_ptr<QueryStream<EventEnvelope>> by_id =
      queries->EventsByPersistenceId("x", 1, 1);
  std::unique_ptr<QueryStream<std::string>> ids = queries->PersistenceIds();
  auto tag_pull = StartPull(*by_tag, 10);
  auto id_pull = StartPull(*by_id, 10);
  auto ids_pull = StartPull(*ids, 10);
  Write(*other, "x", 1, {"t"});

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> tagged =
      Await<EventEnvelope>(tag_pull);
  ASSERT_OK(tagged);
  ASSERT_EQ(tagged->elements.size(), 1u);
  EXPECT_EQ(tagged->elements[0].persistence_id, "x");
  EXPECT_FALSE(tagged->complete);

  absl::StatusOr<QueryStream<EventEnvelope>::Batch> events =
      Await<EventEnvelope>(id_pull);
  ASSERT_OK(events);
  ASSERT_EQ(events->elements.size(), 1u);
  EXPECT_EQ(events->elements[0].offset, 1);
  EXPECT_TRUE(events->complete);  // reached `to`

  absl::StatusOr<QueryStream<std::string>::Batch> listed =
      Await<std::string>(ids_pull);
  ASSERT_OK(listed);
  EXPECT_EQ(listed->elements, std::vector<std::string>{"x"});
}

// The listener cannot connect (a pooler refusing LISTEN, say): the live
// query still delivers another process's commit after refresh-interval,
// and later reads try to start the listener again.
TEST(PostgresReadJournal,
     ListenerThatCannotConnectFallsBackToTheRefreshInterval) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::unique_ptr<PostgresJournal> other = OpenJournal(db, absl::Hours(1));
  ASSERT_NE(other, nullptr);
  auto attempts = std::make_shared<std::atomic<int>>(0);
  PgReadJournalSettings settings;
  settings.connection.conninfo = db.url();
  settings.connection.schema = db.schema();
  settings.threads = 1;
  settings.refresh_interval = absl::Milliseconds(20);
  settings.backoff.min = absl::Milliseconds(1);
  settings.backoff.max = absl::Milliseconds(10);
  settings.listen_connect = [attempts](const PgConnectionSettings&)
      -> absl::StatusOr<std::unique_ptr<PgConnection>> {
    attempts->fetch_add(1);
    return absl::UnavailableError("refused by the test");
  };
  PostgresReadJournal queries(std::move(settings), NewTestSerialization(),
                              nullptr);

  std::unique_ptr<QueryStream<EventEnvelope>> by_tag =
      queries.EventsByTag("t", 0);
  auto pull = StartPull(*by_tag, 10);
  ASSERT_TRUE(AwaitParked(queries, 1));
  EXPECT_GE(attempts->load(), 1);
  Write(*other, "x", 1, {"t"});
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> tagged =
      Await<EventEnvelope>(pull);
  ASSERT_OK(tagged);
  ASSERT_EQ(tagged->elements.size(), 1u);
  EXPECT_EQ(tagged->elements[0].persistence_id, "x");

  // The parked Pull reads every 20 ms, and tries again each time the
  // delay (at most 12 ms here) has passed.
  pull = StartPull(*by_tag, 10);
  const int before = attempts->load();
  const absl::Time deadline = absl::Now() + kCallDeadline;
  while (attempts->load() == before && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_GT(attempts->load(), before);
}

// The listener's connection, as pg_stat_activity shows it.
int ListenerConnections(TestDatabase& db) {
  absl::StatusOr<std::vector<std::vector<std::string>>> rows =
      db.Query(absl::StrCat(
          "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
          "'cairn ",
          db.schema(), " query listener'"));
  EXPECT_OK(rows);
  return rows.ok() ? std::stoi(rows->at(0).at(0)) : -1;
}

// The listener's connection is made by the first live query's read, not
// for current queries, and closed with the read journal.
TEST(PostgresReadJournal, ListensFromTheFirstLiveQueryUntilDestroyed) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::unique_ptr<PostgresJournal> journal = OpenJournal(db, absl::Hours(1));
  ASSERT_NE(journal, nullptr);
  Write(*journal, "a", 1, {"t"});
  std::unique_ptr<ReadJournal> made = NewReadJournal(*journal);
  auto* queries = dynamic_cast<PostgresReadJournal*>(made.get());
  ASSERT_NE(queries, nullptr);

  std::unique_ptr<QueryStream<EventEnvelope>> current =
      queries->CurrentEventsByTag("t", 0);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*current, 10);
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 1u);
  EXPECT_EQ(ListenerConnections(db), 0);

  std::unique_ptr<QueryStream<std::string>> ids = queries->PersistenceIds();
  absl::StatusOr<QueryStream<std::string>::Batch> listed = PullOnce(*ids, 10);
  ASSERT_OK(listed);
  EXPECT_EQ(listed->elements, std::vector<std::string>{"a"});
  // LISTEN ran before that read: the connection is there.
  EXPECT_EQ(ListenerConnections(db), 1);

  // A stream outliving its read journal does not keep the listener.
  made.reset();
  const absl::Time deadline = absl::Now() + kCallDeadline;
  while (ListenerConnections(db) != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(ListenerConnections(db), 0);
}

// The listener's connection is lost (the backend terminated): it connects
// again and wakes the queries once, since what was committed meanwhile
// was announced to nobody; later commits are heard again. With a refresh
// interval of an hour, only the listener can deliver them.
TEST(PostgresReadJournal, ListenerThatLostItsConnectionHearsCommitsAgain) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::unique_ptr<PostgresJournal> other = OpenJournal(db, absl::Hours(1));
  std::unique_ptr<PostgresJournal> own = OpenJournal(db, absl::Hours(1));
  ASSERT_NE(other, nullptr);
  ASSERT_NE(own, nullptr);
  std::unique_ptr<ReadJournal> made = NewReadJournal(*own);
  auto* queries = dynamic_cast<PostgresReadJournal*>(made.get());
  ASSERT_NE(queries, nullptr);
  std::unique_ptr<QueryStream<EventEnvelope>> by_tag =
      queries->EventsByTag("t", 0);
  auto pull = StartPull(*by_tag, 10);
  ASSERT_TRUE(AwaitParked(*queries, 1));
  ASSERT_EQ(ListenerConnections(db), 1);

  absl::StatusOr<std::vector<std::vector<std::string>>> ended = db.Query(
      absl::StrCat("SELECT bool_and(pg_terminate_backend(pid, ",
                   absl::ToInt64Milliseconds(kCallDeadline),
                   ")) FROM pg_stat_activity WHERE application_name = 'cairn ",
                   db.schema(), " query listener'"));
  ASSERT_OK(ended);
  ASSERT_EQ(*ended, (std::vector<std::vector<std::string>>{{"t"}}));
  // Committed while the listener connects again, or after: either the
  // wake after the reconnection reads it, or its notification is heard.
  Write(*other, "x", 1, {"t"});
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> tagged =
      Await<EventEnvelope>(pull);
  ASSERT_OK(tagged);
  ASSERT_EQ(tagged->elements.size(), 1u);
  EXPECT_EQ(tagged->elements[0].persistence_id, "x");

  // Listening again (its new connection is there once the wake after the
  // reconnection came): the next commit is heard.
  const absl::Time deadline = absl::Now() + kCallDeadline;
  while (ListenerConnections(db) != 1 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  pull = StartPull(*by_tag, 10);
  ASSERT_TRUE(AwaitParked(*queries, 1));
  Write(*other, "y", 1, {"t"});
  tagged = Await<EventEnvelope>(pull);
  ASSERT_OK(tagged);
  ASSERT_EQ(tagged->elements.size(), 1u);
  EXPECT_EQ(tagged->elements[0].persistence_id, "y");
}

// As a replay: the Pull fails naming the record, and the query is over.
TEST(PostgresReadJournal, RecordThatCannotBeReadFailsThePullNamingIt) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::unique_ptr<PostgresJournal> journal = OpenJournal(db, absl::Seconds(1));
  ASSERT_NE(journal, nullptr);
  Write(*journal, "a", 1, {"t"});
  Write(*journal, "a", 2, {"t"});
  ASSERT_OK(
      db.Execute("UPDATE event_journal SET serializer_id = 987654 "
                 "WHERE sequence_number = 2"));
  std::unique_ptr<ReadJournal> queries = NewReadJournal(*journal);
  ASSERT_NE(queries, nullptr);

  std::unique_ptr<QueryStream<EventEnvelope>> by_tag =
      queries->CurrentEventsByTag("t", 0);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> first =
      PullOnce(*by_tag, 1);
  ASSERT_OK(first);
  ASSERT_EQ(first->elements.size(), 1u);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> second =
      PullOnce(*by_tag, 1);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::StrContains(second.status().message(),
                                "persistence id 'a', sequence nr 2"))
      << second.status();
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> again =
      PullOnce(*by_tag, 1);
  EXPECT_EQ(again.status(), second.status());

  std::unique_ptr<QueryStream<EventEnvelope>> by_id =
      queries->CurrentEventsByPersistenceId("a", 1, 10);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*by_id, 10);
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), second.status().code());
  EXPECT_TRUE(absl::StrContains(all.status().message(),
                                "persistence id 'a', sequence nr 2"))
      << all.status();
}

// Ends every connection to `database` (each termination waited for, up
// to kCallDeadline).
void EndConnections(TestDatabase& db, const std::string& database) {
  absl::StatusOr<std::vector<std::vector<std::string>>> ended =
      db.Query(absl::StrCat("SELECT bool_and(pg_terminate_backend(pid, ",
                            absl::ToInt64Milliseconds(kCallDeadline),
                            ")) FROM pg_stat_activity WHERE datname = '",
                            database, "'"));
  ASSERT_OK(ended);
  EXPECT_EQ(*ended, (std::vector<std::vector<std::string>>{{"t"}}));
}

// The connection a query reads on is lost (the server restarted): the
// Pull reads again on a new one. No new one can be had (the server is
// down): the Pull fails with Unavailable, and the query is over; a new
// query connects again once the server is back.
TEST(PostgresReadJournal, LostConnectionIsRepairedOrFailsThePullUnavailable) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  // A database of the test's own, so that it can end every connection to
  // it, and refuse new ones, without touching another test's.
  const std::string database = db.schema();
  ASSERT_OK(db.Execute(absl::StrCat("CREATE DATABASE ", database)));
  struct DropDatabase {
    ~DropDatabase() {
      EXPECT_OK(db.Execute(
          absl::StrCat("DROP DATABASE ", database, " WITH (FORCE)")));
    }
    TestDatabase& db;
    const std::string& database;
  } drop{db, database};
  const std::string conninfo =
      absl::StrCat(db.url(), absl::StrContains(db.url(), "?") ? "&" : "?",
                   "dbname=", database);
  std::unique_ptr<PostgresJournal> journal =
      OpenJournal(conninfo, "public", absl::Seconds(1));
  ASSERT_NE(journal, nullptr);
  for (int64_t n = 1; n <= 3; ++n) Write(*journal, "a", n, {"t"});
  std::unique_ptr<ReadJournal> queries = NewReadJournal(*journal);
  ASSERT_NE(queries, nullptr);
  std::unique_ptr<QueryStream<EventEnvelope>> by_tag =
      queries->EventsByTag("t", 0);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> first =
      PullOnce(*by_tag, 1);
  ASSERT_OK(first);

  EndConnections(db, database);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> repaired =
      PullOnce(*by_tag, 1);
  ASSERT_OK(repaired);
  ASSERT_EQ(repaired->elements.size(), 1u);
  EXPECT_EQ(repaired->elements[0].sequence_nr, 2);

  ASSERT_OK(db.Execute(
      absl::StrCat("ALTER DATABASE ", database, " ALLOW_CONNECTIONS false")));
  EndConnections(db, database);
  absl::StatusOr<QueryStream<EventEnvelope>::Batch> lost = PullOnce(*by_tag, 1);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), absl::StatusCode::kUnavailable)
      << lost.status();
  EXPECT_EQ(PullOnce(*by_tag, 1).status(), lost.status());

  ASSERT_OK(db.Execute(
      absl::StrCat("ALTER DATABASE ", database, " ALLOW_CONNECTIONS true")));
  // Until the pool's reconnect backoff has passed, a Pull fails at once.
  absl::StatusOr<std::vector<EventEnvelope>> all =
      absl::UnavailableError("not tried");
  const absl::Time deadline = absl::Now() + kCallDeadline;
  while (!all.ok() && absl::Now() < deadline) {
    std::unique_ptr<QueryStream<EventEnvelope>> again =
        queries->CurrentEventsByTag("t", 0);
    all = PullAll(*again, 10);
    if (!all.ok()) {
      ASSERT_EQ(all.status().code(), absl::StatusCode::kUnavailable)
          << all.status();
    }
  }
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 3u);
  queries.reset();
  journal.reset();
}

TEST(PostgresReadJournal, OutlivesItsJournal) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::unique_ptr<PostgresJournal> journal = OpenJournal(db, absl::Seconds(1));
  ASSERT_NE(journal, nullptr);
  Write(*journal, "a", 1, {"t"});
  std::unique_ptr<ReadJournal> queries = NewReadJournal(*journal);
  ASSERT_NE(queries, nullptr);
  journal.reset();
  std::unique_ptr<QueryStream<EventEnvelope>> by_id =
      queries->CurrentEventsByPersistenceId("a", 0, 100);
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(*by_id, 10);
  ASSERT_OK(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().tags, std::vector<std::string>{"t"});
}

}  // namespace
}  // namespace cairn::persistence::testing
