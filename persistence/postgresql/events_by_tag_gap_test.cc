// The "gap problem" of SQL journals (issue 20): a transaction that draws
// its number (an event's `ordering`, a new stream's `created`) and commits
// after a later-numbered one must not be passed over by a live query that
// already read the later one. Two PostgresJournals on one schema stand for
// two processes: writer A's transaction is held after it drew its number,
// inside its pipeline, by a trigger that waits for an advisory lock the
// test holds; writer B writes meanwhile. The journal's ordering lock makes
// B wait for A's commit; without it, B commits first and the queries skip
// A for good.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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

using ::cairn::persistence::postgres_internal::PgJournalSettings;
using ::cairn::persistence::postgres_internal::PostgresJournal;

// The advisory lock key the test holds to stop writer A's transaction.
constexpr int kHoldKey = 4242;

std::unique_ptr<PostgresJournal> OpenJournal(const TestDatabase& db) {
  PgJournalSettings settings;
  settings.connection.conninfo = db.url();
  settings.connection.schema = db.schema();
  settings.reader_connections = 1;
  // Writer A's pipeline waits while the test holds it.
  settings.connection.call_timeout = 2 * kCallDeadline;
  absl::StatusOr<std::unique_ptr<PostgresJournal>> journal =
      PostgresJournal::Open(std::move(settings), NewTestSerialization());
  EXPECT_OK(journal);
  return journal.ok() ? *std::move(journal) : nullptr;
}

// Whether `condition` (an SQL boolean expression) is true, polled until it
// is or kCallDeadline passed.
bool Eventually(TestDatabase& db, const std::string& condition) {
  const std::string sql = absl::StrCat("SELECT ", condition);
  const absl::Time deadline = absl::Now() + kCallDeadline;
  while (absl::Now() < deadline) {
    absl::StatusOr<std::vector<std::vector<std::string>>> rows = db.Query(sql);
    if (!rows.ok()) {
      ADD_FAILURE() << sql << ": " << rows.status();
      return false;
    }
    if (rows->size() == 1 && (*rows)[0].size() == 1 && (*rows)[0][0] == "t") {
      return true;
    }
  }
  ADD_FAILURE() << "not true within " << kCallDeadline << ": " << sql;
  return false;
}

// Sessions of the server waiting for advisory lock `key_sql` (a bigint
// expression, as pg_advisory_xact_lock takes it).
std::string WaitersOf(const std::string& key_sql) {
  return absl::StrCat(
      "(SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT "
      "granted AND objsubid = 1 AND classid::bigint = ((",
      key_sql, ")::bigint >> 32) & 4294967295 AND objid::bigint = (", key_sql,
      ")::bigint & 4294967295)");
}

// One write's outcome, from the journal's thread.
using WriteSlot = Slot<absl::Status>;

std::shared_ptr<WriteSlot> StartWrite(Journal& journal,
                                      const std::string& persistence_id,
                                      std::vector<std::string> tags) {
  auto slot = std::make_shared<WriteSlot>();
  PersistentRepr event = Event(
      persistence_id, 1, serialization::Payload::Of(persistence_id + "-1"));
  event.tags = std::move(tags);
  AtomicWrite write;
  write.events.push_back(std::move(event));
  std::vector<AtomicWrite> writes;
  writes.push_back(std::move(write));
  journal.AsyncWriteMessages(
      std::move(writes),
      [slot](absl::Status batch, std::vector<absl::Status> per_write) {
        for (absl::Status& s : per_write) {
          if (batch.ok()) batch = std::move(s);
        }
        slot->Set(std::move(batch));
      });
  return slot;
}

class GapTest : public ::testing::Test {
 protected:
  // Opens the two writers and makes writer A's first write to id "a" wait,
  // inside its transaction, after the row of `table` is inserted (its
  // number drawn), for the advisory lock the test takes here.
  void Hold(const std::string& table) {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    writer_a_ = OpenJournal(*db_);
    writer_b_ = OpenJournal(*db_);
    ASSERT_NE(writer_a_, nullptr);
    ASSERT_NE(writer_b_, nullptr);
    ASSERT_OK(db_->Execute(absl::StrCat(R"sql(
        CREATE FUNCTION hold_writer_a() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_advisory_xact_lock_shared()sql",
                                        kHoldKey, R"sql();
          RETURN NULL;
        END $$;
        CREATE TRIGGER hold_writer_a AFTER INSERT ON )sql",
                                        table, R"sql(
          FOR EACH ROW WHEN (NEW.persistence_id = 'a')
          EXECUTE FUNCTION hold_writer_a();
        SELECT pg_advisory_lock()sql",
                                        kHoldKey, ")")));
    held_ = true;
  }

  // Writer A writes id "a" and waits, holding its number; writer B then
  // writes id "b": with the ordering lock it waits for A, without it it
  // commits. Returns when B has done one or the other.
  void WriteAThenB() {
    write_a_ = StartWrite(*writer_a_, "a", {"t"});
    ASSERT_TRUE(Eventually(
        *db_, absl::StrCat(WaitersOf(absl::StrCat(kHoldKey)), " = 1")));
    write_b_ = StartWrite(*writer_b_, "b", {"t"});
    const std::string b_waits =
        absl::StrCat(WaitersOf(absl::StrCat(
                         "hashtext('cairn-ordering:", db_->schema(), "')")),
                     " = 1");
    // B committed (its id is there) or waits for the ordering lock.
    ASSERT_TRUE(Eventually(
        *db_, absl::StrCat("EXISTS (SELECT FROM journal_stream WHERE "
                           "persistence_id = 'b') OR ",
                           b_waits)));
  }

  void Release() {
    if (!held_) return;
    held_ = false;
    EXPECT_OK(db_->Execute(
        absl::StrCat("SELECT pg_advisory_unlock(", kHoldKey, ")")));
  }

  void TearDown() override {
    // Writer A's transaction must end before the journals are destroyed.
    if (db_.has_value()) Release();
    if (write_a_ != nullptr) {
      EXPECT_TRUE(write_a_->Wait().has_value());
    }
    if (write_b_ != nullptr) {
      EXPECT_TRUE(write_b_->Wait().has_value());
    }
    writer_a_.reset();
    writer_b_.reset();
  }

  std::optional<TestDatabase> db_;  // before what connects to its schema
  std::unique_ptr<PostgresJournal> writer_a_;
  std::unique_ptr<PostgresJournal> writer_b_;
  std::shared_ptr<WriteSlot> write_a_;
  std::shared_ptr<WriteSlot> write_b_;
  bool held_ = false;
};

TEST_F(GapTest, EventsByTagNeverPassesOverAnEventThatCommitsLate) {
  Hold("event_journal");
  if (HasFatalFailure() || IsSkipped()) return;
  WriteAThenB();
  if (HasFatalFailure()) return;
  absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
      writer_b_->NewReadJournal();
  ASSERT_OK(queries);

  // While A is held, nothing numbered after it is visible.
  std::unique_ptr<QueryStream<EventEnvelope>> current =
      (*queries)->CurrentEventsByTag("t", 0);
  absl::StatusOr<std::vector<EventEnvelope>> seen = PullAll(*current, 10);
  ASSERT_OK(seen);
  int64_t last_offset = 0;
  for (const EventEnvelope& e : *seen) {
    ADD_FAILURE() << "delivered " << e.persistence_id << " (offset " << e.offset
                  << ") while writer A's event was uncommitted";
    last_offset = e.offset;
  }

  // A consumer resumes from the last offset it saw, with a Pull waiting
  // while A is held; A commits, then B.
  std::unique_ptr<QueryStream<EventEnvelope>> live =
      (*queries)->EventsByTag("t", last_offset);
  std::shared_ptr<PullSlot<EventEnvelope>> first = StartPull(*live, 10);
  Release();
  std::vector<EventEnvelope> events;
  for (std::shared_ptr<PullSlot<EventEnvelope>> pull = first;;
       pull = StartPull(*live, 10)) {
    std::optional<absl::StatusOr<QueryStream<EventEnvelope>::Batch>> batch =
        pull->Wait();
    ASSERT_TRUE(batch.has_value())
        << "the live query did not deliver both events within " << kCallDeadline
        << "; it delivered " << events.size();
    ASSERT_OK(*batch);
    for (EventEnvelope& e : (*batch)->elements) events.push_back(std::move(e));
    if (events.size() >= 2) break;
  }
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].persistence_id, "a");
  EXPECT_EQ(events[1].persistence_id, "b");
  EXPECT_LT(events[0].offset, events[1].offset);
  EXPECT_OK(write_a_->Wait().value_or(absl::UnknownError("none")));
  EXPECT_OK(write_b_->Wait().value_or(absl::UnknownError("none")));
}

TEST_F(GapTest, PersistenceIdsNeverPassesOverAnIdThatCommitsLate) {
  Hold("journal_stream");
  if (HasFatalFailure() || IsSkipped()) return;
  WriteAThenB();
  if (HasFatalFailure()) return;
  absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
      writer_b_->NewReadJournal();
  ASSERT_OK(queries);

  std::unique_ptr<QueryStream<std::string>> current =
      (*queries)->CurrentPersistenceIds();
  absl::StatusOr<std::vector<std::string>> seen = PullAll(*current, 10);
  ASSERT_OK(seen);
  EXPECT_TRUE(seen->empty()) << "listed " << seen->front()
                             << " while writer A's new id was uncommitted";

  std::unique_ptr<QueryStream<std::string>> live = (*queries)->PersistenceIds();
  std::shared_ptr<PullSlot<std::string>> first = StartPull(*live, 10);
  // Whatever the first Pull read, the live query must list both ids.
  Release();
  std::vector<std::string> ids;
  for (std::shared_ptr<PullSlot<std::string>> pull = first;;
       pull = StartPull(*live, 10)) {
    std::optional<absl::StatusOr<QueryStream<std::string>::Batch>> batch =
        pull->Wait();
    ASSERT_TRUE(batch.has_value())
        << "the live query did not list both ids within " << kCallDeadline
        << "; it listed " << ids.size();
    ASSERT_OK(*batch);
    for (std::string& id : (*batch)->elements) ids.push_back(std::move(id));
    if (ids.size() >= 2) break;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace cairn::persistence::testing
