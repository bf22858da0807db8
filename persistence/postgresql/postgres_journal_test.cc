// The PostgreSQL journal under faults, against a real server (skipped
// without one): a lost connection fails the write on it and the next ones
// connect again, losing nothing acknowledged; a read or delete runs again
// on a new connection; a statement past the call
// timeout is cancelled by the server and fails, having stored nothing; an
// unreachable server fails fast; a second journal on the same schema (a
// second process) cannot write a stream's numbers twice; a schema of a
// newer cairn is refused.

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/postgres_plugin.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ReplayMessages;
using testing::Single;
using testing::TestDatabase;
using testing::Texts;
using testing::WriteMessages;

constexpr int64_t kMax = kMaxSequenceNr;

class PostgresJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.connection_string = db_->url();
    options_.schema = db_->schema();
    options_.reader_connections = 2;
  }

  // A journal on the test's schema with options_, as another process
  // would make it: each call makes a new registry and journal.
  std::unique_ptr<Journal> NewJournal() {
    PluginRegistry registry;
    EXPECT_OK(RegisterPostgresPlugins(registry, options_));
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        registry.CreateJournal(kPostgresJournalPluginId, {serialization_});
    EXPECT_OK(journal);
    return journal.ok() ? *std::move(journal) : nullptr;
  }

  absl::Status Write(Journal& journal, const std::string& id, int64_t n) {
    return WriteMessages(
               journal,
               {Single(id, n,
                       serialization::Payload::Of(absl::StrCat(id, "-", n)))})
        .batch;
  }

  // Ends every connection the plugins have to the schema, as a server
  // restart or a broken network would, and waits until they are gone.
  void TerminateConnections() {
    const std::string of_schema =
        absl::StrCat("application_name = 'cairn ", db_->schema(), "'");
    ASSERT_OK(
        db_->Execute(absl::StrCat("SELECT pg_terminate_backend(pid) FROM "
                                  "pg_stat_activity WHERE ",
                                  of_schema)));
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (true) {
      absl::StatusOr<std::vector<std::vector<std::string>>> left =
          db_->Query(absl::StrCat(
              "SELECT count(*) FROM pg_stat_activity WHERE ", of_schema));
      ASSERT_OK(left);
      if ((*left)[0][0] == "0") return;
      ASSERT_LT(absl::Now(), deadline) << "connections still there";
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  std::optional<TestDatabase> db_;  // first: dropped after the journals
  PostgresOptions options_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
};

TEST_F(PostgresJournalTest, AWriteOnALostConnectionFailsAndTheNextReconnects) {
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  ASSERT_OK(Write(*journal, "p", 1));
  ASSERT_OK(Write(*journal, "p", 2));
  TerminateConnections();
  if (HasFatalFailure()) return;
  absl::Status lost = Write(*journal, "p", 3);
  EXPECT_EQ(lost.code(), absl::StatusCode::kUnavailable) << lost;
  ASSERT_OK(Write(*journal, "p", 3));
  EXPECT_THAT(Texts(ReplayMessages(*journal, "p", 1, kMax, kMax).events),
              ElementsAre("p-1", "p-2", "p-3"));
}

// Reads change nothing: one that finds its connection lost runs again on
// a new one, so a server restart costs it nothing.
TEST_F(PostgresJournalTest, AReadOnALostConnectionRunsAgainOnANewOne) {
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  ASSERT_OK(Write(*journal, "p", 1));
  ASSERT_OK(ReplayMessages(*journal, "p", 1, kMax, kMax).status);
  TerminateConnections();
  if (HasFatalFailure()) return;
  testing::ReplayOutcome again = ReplayMessages(*journal, "p", 1, kMax, kMax);
  ASSERT_OK(again.status);
  EXPECT_THAT(Texts(again.events), ElementsAre("p-1"));
  TerminateConnections();
  if (HasFatalFailure()) return;
  absl::StatusOr<int64_t> highest =
      testing::ReadHighestSequenceNr(*journal, "p");
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 1);
  TerminateConnections();
  if (HasFatalFailure()) return;
  EXPECT_OK(testing::DeleteMessagesTo(*journal, "p", 1));
}

TEST_F(PostgresJournalTest, AStatementPastTheCallTimeoutFailsAndStoresNothing) {
  options_.call_timeout = absl::Milliseconds(300);
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  ASSERT_OK(Write(*journal, "p", 1));
  // Another session holds the streams' table: the write waits for it.
  ASSERT_OK(db_->Execute(
      "BEGIN; LOCK TABLE journal_stream IN ACCESS EXCLUSIVE MODE"));
  absl::Status timed_out = Write(*journal, "p", 2);
  ASSERT_OK(db_->Execute("ROLLBACK"));
  EXPECT_EQ(timed_out.code(), absl::StatusCode::kDeadlineExceeded) << timed_out;
  // Cancelled by the server, so nothing of it was stored: 2 is free.
  ASSERT_OK(Write(*journal, "p", 2));
  EXPECT_THAT(Texts(ReplayMessages(*journal, "p", 1, kMax, kMax).events),
              ElementsAre("p-1", "p-2"));
}

// Calls queued while the writer is busy go in one transaction, the
// streams advanced in one statement and untagged events in one: a refused
// write in it fails its call alone, and the others are stored, tags and
// all.
TEST_F(PostgresJournalTest, OneRefusedWriteInABatchFailsItsCallAlone) {
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  ASSERT_OK(Write(*journal, "warm-up", 1));  // tables, connection
  // Another session holds the schema's write lock: the writer's next
  // transaction waits for it, and the calls after it queue up.
  const std::string lock =
      absl::StrCat("hashtext('cairn-ordering:", db_->schema(), "')");
  ASSERT_OK(db_->Execute(absl::StrCat("SELECT pg_advisory_lock(", lock, ")")));
  struct Outcome {
    std::promise<absl::Status> done;
  };
  std::vector<std::unique_ptr<Outcome>> outcomes;
  auto submit = [&](std::vector<AtomicWrite> writes) {
    outcomes.push_back(std::make_unique<Outcome>());
    journal->AsyncWriteMessages(
        std::move(writes), [outcome = outcomes.back().get()](
                               absl::Status batch, std::vector<absl::Status>) {
          outcome->done.set_value(std::move(batch));
        });
  };
  auto text = [](const std::string& id, int64_t n,
                 std::vector<std::string> tags = {}) {
    AtomicWrite write =
        Single(id, n, serialization::Payload::Of(absl::StrCat(id, "-", n)));
    write.events.front().tags = std::move(tags);
    return write;
  };
  submit({text("p0", 1)});  // the transaction that waits
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  bool waiting = false;
  while (!waiting && absl::Now() < deadline) {
    absl::StatusOr<std::vector<std::vector<std::string>>> rows =
        db_->Query(absl::StrCat(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
            "'Lock' AND application_name = 'cairn ",
            db_->schema(), "'"));
    ASSERT_OK(rows);
    waiting = (*rows)[0][0] == "1";
    if (!waiting) absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_TRUE(waiting) << "the writer did not wait for the lock";
  std::vector<AtomicWrite> two;
  two.push_back(text("p1", 1));
  two.push_back(text("p1", 2));
  submit(std::move(two));          // merged moves
  submit({text("p2", 1, {"t"})});  // tagged
  submit({text("p1", 5)});         // refused: a gap
  std::vector<AtomicWrite> mixed;
  mixed.push_back(text("p3", 1));
  mixed.push_back(text("p1", 3, {"t"}));
  submit(std::move(mixed));
  submit({text("warm-up", 7)});  // refused by the server: stored is 1
  ASSERT_OK(
      db_->Execute(absl::StrCat("SELECT pg_advisory_unlock(", lock, ")")));

  std::vector<absl::Status> statuses;
  for (auto& outcome : outcomes)
    statuses.push_back(outcome->done.get_future().get());
  EXPECT_OK(statuses[0]);
  EXPECT_OK(statuses[1]);
  EXPECT_OK(statuses[2]);
  EXPECT_EQ(statuses[3].code(), absl::StatusCode::kFailedPrecondition)
      << statuses[3];
  EXPECT_THAT(std::string(statuses[3].message()), HasSubstr("'p1'"));
  EXPECT_OK(statuses[4]);
  EXPECT_EQ(statuses[5].code(), absl::StatusCode::kFailedPrecondition)
      << statuses[5];
  EXPECT_THAT(std::string(statuses[5].message()), HasSubstr("'warm-up'"));
  EXPECT_THAT(Texts(ReplayMessages(*journal, "p1", 1, kMax, kMax).events),
              ElementsAre("p1-1", "p1-2", "p1-3"));
  EXPECT_THAT(Texts(ReplayMessages(*journal, "p2", 1, kMax, kMax).events),
              ElementsAre("p2-1"));
  EXPECT_THAT(Texts(ReplayMessages(*journal, "p3", 1, kMax, kMax).events),
              ElementsAre("p3-1"));
  absl::StatusOr<std::vector<std::vector<std::string>>> tagged = db_->Query(
      "SELECT e.persistence_id || '-' || e.sequence_number FROM event_tag t "
      "JOIN event_journal e USING (ordering) WHERE t.tag = 't' "
      "ORDER BY t.ordering");
  ASSERT_OK(tagged);
  ASSERT_EQ(tagged->size(), 2u);
  EXPECT_EQ((*tagged)[0][0], "p2-1");
  EXPECT_EQ((*tagged)[1][0], "p1-3");
}

// Reads queued together share a pipeline: each still gets its own events
// (a stream longer than a page goes on after it), its own highest number,
// or its own error.
TEST_F(PostgresJournalTest, ReadsQueuedTogetherEachGetTheirOwnAnswer) {
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  constexpr int kStreams = 50;
  for (int i = 0; i < kStreams; ++i) {
    std::vector<AtomicWrite> writes;
    for (int n = 1; n <= 1 + i % 3; ++n) {
      const std::string id = absl::StrCat("s", i);
      writes.push_back(
          Single(id, n, serialization::Payload::Of(absl::StrCat(id, "-", n))));
    }
    ASSERT_OK(WriteMessages(*journal, std::move(writes)).batch);
  }
  ASSERT_OK(Write(*journal, "corrupt", 1));
  ASSERT_OK(Write(*journal, "corrupt", 2));
  ASSERT_OK(Write(*journal, "corrupt", 3));
  // A serializer nobody knows: its event cannot be read.
  ASSERT_OK(
      db_->Execute("UPDATE event_journal SET serializer_id = 987654 "
                   "WHERE persistence_id = 'corrupt' AND "
                   "sequence_number = 2"));
  constexpr int kLong = 1234;  // more than a page of the replay
  {
    std::vector<AtomicWrite> writes;
    for (int n = 1; n <= kLong; ++n) {
      writes.push_back(
          Single("long", n, serialization::Payload::Of(absl::StrCat(n))));
    }
    ASSERT_OK(WriteMessages(*journal, std::move(writes)).batch);
  }

  struct Replayed {
    std::vector<std::string> texts;
    std::promise<absl::Status> done;
  };
  std::vector<std::unique_ptr<Replayed>> replays;
  std::vector<std::promise<absl::StatusOr<int64_t>>> highest(kStreams);
  auto replay = [&](const std::string& id, int64_t from = 1, int64_t to = kMax,
                    int64_t max = kMax) {
    replays.push_back(std::make_unique<Replayed>());
    Replayed* r = replays.back().get();
    journal->AsyncReplayMessages(
        id, from, to, max,
        [r](const PersistentRepr& e) {
          r->texts.push_back(*e.payload.As<std::string>());
        },
        [r](absl::Status status) { r->done.set_value(std::move(status)); });
  };
  for (int i = 0; i < kStreams; ++i) {
    replay(absl::StrCat("s", i));
    journal->AsyncReadHighestSequenceNr(
        absl::StrCat("s", i), 0, [&highest, i](absl::StatusOr<int64_t> h) {
          highest[i].set_value(std::move(h));
        });
  }
  replay("long");
  replay(std::string("bad\0id", 6));
  replay("never-written");
  // Bounds of their own, beside each other in one statement.
  replay("long", 100, 1200, 1050);  // 100..1149: max in the 2nd page
  replay("long", 1200, 1210);       // 1200..1210: `to` first
  replay("long", 5, kMax, 0);       // nothing asked
  replay("s1", 2);                  // s1-2 only
  replay("corrupt");                // fails alone, after its first event

  for (int i = 0; i < kStreams; ++i) {
    ASSERT_OK(replays[i]->done.get_future().get()) << i;
    std::vector<std::string> expected;
    for (int n = 1; n <= 1 + i % 3; ++n) {
      expected.push_back(absl::StrCat("s", i, "-", n));
    }
    EXPECT_EQ(replays[i]->texts, expected) << i;
    absl::StatusOr<int64_t> h = highest[i].get_future().get();
    ASSERT_OK(h);
    EXPECT_EQ(*h, 1 + i % 3) << i;
  }
  ASSERT_OK(replays[kStreams]->done.get_future().get());
  ASSERT_EQ(replays[kStreams]->texts.size(), static_cast<size_t>(kLong));
  EXPECT_EQ(replays[kStreams]->texts.back(), absl::StrCat(kLong));
  EXPECT_EQ(replays[kStreams + 1]->done.get_future().get().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_OK(replays[kStreams + 2]->done.get_future().get());
  EXPECT_TRUE(replays[kStreams + 2]->texts.empty());
  auto numbers = [](int from, int to) {
    std::vector<std::string> out;
    for (int n = from; n <= to; ++n) out.push_back(absl::StrCat(n));
    return out;
  };
  ASSERT_OK(replays[kStreams + 3]->done.get_future().get());
  EXPECT_EQ(replays[kStreams + 3]->texts, numbers(100, 1149));
  ASSERT_OK(replays[kStreams + 4]->done.get_future().get());
  EXPECT_EQ(replays[kStreams + 4]->texts, numbers(1200, 1210));
  ASSERT_OK(replays[kStreams + 5]->done.get_future().get());
  EXPECT_TRUE(replays[kStreams + 5]->texts.empty());
  ASSERT_OK(replays[kStreams + 6]->done.get_future().get());
  EXPECT_THAT(replays[kStreams + 6]->texts, ElementsAre("s1-2"));
  const absl::Status corrupt = replays[kStreams + 7]->done.get_future().get();
  EXPECT_FALSE(corrupt.ok());
  EXPECT_THAT(corrupt.message(), HasSubstr("'corrupt'"));
  EXPECT_THAT(corrupt.message(), HasSubstr("sequence nr 2"));
  EXPECT_THAT(replays[kStreams + 7]->texts, ElementsAre("corrupt-1"));
}

// One reader goes on with a long replay a page per round, taking the reads
// that come meanwhile into its next round: a short replay submitted during
// a long one is answered long before the long one ends.
TEST_F(PostgresJournalTest, ALongReplayDoesNotHoldANewerReadBehindIt) {
  options_.reader_connections = 1;
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  constexpr int kLong = 20000;  // 20 pages of 1000
  std::vector<AtomicWrite> writes;
  for (int n = 1; n <= kLong; ++n) {
    writes.push_back(
        Single("long", n, serialization::Payload::Of(absl::StrCat(n))));
  }
  ASSERT_OK(WriteMessages(*journal, std::move(writes)).batch);
  ASSERT_OK(Write(*journal, "short", 1));

  std::promise<void> short_submitted;
  std::shared_future<void> submitted = short_submitted.get_future().share();
  std::atomic<int> long_events{0};
  std::atomic<bool> long_done{false};
  std::promise<absl::Status> long_status;
  journal->AsyncReplayMessages(
      "long", 1, kMax, kMax,
      [&](const PersistentRepr&) {
        // The first page waits until the short read is queued.
        if (long_events.fetch_add(1) == 0) submitted.wait();
      },
      [&](absl::Status status) {
        long_done = true;
        long_status.set_value(std::move(status));
      });
  std::promise<bool> long_done_first;
  std::promise<absl::Status> short_status;
  journal->AsyncReplayMessages(
      "short", 1, kMax, kMax, [](const PersistentRepr&) {},
      [&](absl::Status status) {
        long_done_first.set_value(long_done.load());
        short_status.set_value(std::move(status));
      });
  short_submitted.set_value();
  EXPECT_OK(short_status.get_future().get());
  EXPECT_FALSE(long_done_first.get_future().get());
  EXPECT_OK(long_status.get_future().get());
  EXPECT_EQ(long_events.load(), kLong);
}

// A reader answers up to 64 reads at once. When it has 64 that are held
// up (here: the first of them cannot go on until a short replay submitted
// after them is answered), a helper reader takes the reads it has no room
// for, so the short replay is not held behind them.
TEST_F(PostgresJournalTest, AHelperReaderTakesWhatTheFirstHasNoRoomFor) {
  options_.reader_connections = 2;
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  constexpr int kBusy = 64;
  std::vector<AtomicWrite> writes;
  for (int i = 0; i < kBusy; ++i) {
    writes.push_back(Single(absl::StrCat("busy-", i), 1,
                            serialization::Payload::Of(std::string("x"))));
  }
  writes.push_back(
      Single("short", 1, serialization::Payload::Of(std::string("s"))));
  writes.push_back(
      Single("holder", 1, serialization::Payload::Of(std::string("h"))));
  const auto written = WriteMessages(*journal, std::move(writes));
  ASSERT_OK(written.batch);
  for (const absl::Status& w : written.per_write) ASSERT_OK(w);

  // The holder keeps the first reader in its round until the busy replays
  // are queued: its next round then takes all 64 of them.
  std::promise<void> busy_queued;
  std::shared_future<void> all_busy_queued = busy_queued.get_future().share();
  std::promise<void> holding;
  std::promise<absl::Status> holder_status;
  journal->AsyncReplayMessages(
      "holder", 1, kMax, kMax,
      [all_busy_queued, &holding](const PersistentRepr&) {
        holding.set_value();
        all_busy_queued.wait();
      },
      [&](absl::Status s) { holder_status.set_value(std::move(s)); });
  holding.get_future().wait();  // the holder's round has only the holder
  std::promise<absl::Status> short_status;
  std::shared_future<absl::Status> short_done =
      short_status.get_future().share();
  std::promise<void> busy_round;
  std::vector<std::promise<absl::Status>> busy_status(kBusy);
  for (int i = 0; i < kBusy; ++i) {
    journal->AsyncReplayMessages(
        absl::StrCat("busy-", i), 1, kMax, kMax,
        [i, &busy_round, short_done](const PersistentRepr&) {
          if (i != 0) return;
          // In the busy round: hold the reader until the short replay is
          // answered (by another reader), or for 30 s.
          busy_round.set_value();
          short_done.wait_for(std::chrono::seconds(30));
        },
        [&busy_status, i](absl::Status status) {
          busy_status[i].set_value(std::move(status));
        });
  }
  busy_queued.set_value();
  EXPECT_OK(holder_status.get_future().get());
  busy_round.get_future().wait();
  journal->AsyncReplayMessages(
      "short", 1, kMax, kMax, [](const PersistentRepr&) {},
      [&](absl::Status status) { short_status.set_value(std::move(status)); });
  ASSERT_EQ(short_done.wait_for(std::chrono::seconds(20)),
            std::future_status::ready)
      << "the short replay waited behind the busy reader";
  EXPECT_OK(short_done.get());
  for (auto& busy : busy_status) EXPECT_OK(busy.get_future().get());
}

// A replay that has delivered pages goes on from where it got after its
// connection is lost (a server restart): every event exactly once.
TEST_F(PostgresJournalTest, AReplayGoesOnAfterItsConnectionIsLost) {
  options_.reader_connections = 1;
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  constexpr int kLong = 1200;  // two pages of 1000
  std::vector<AtomicWrite> writes;
  for (int n = 1; n <= kLong; ++n) {
    writes.push_back(
        Single("long", n, serialization::Payload::Of(absl::StrCat(n))));
  }
  ASSERT_OK(WriteMessages(*journal, std::move(writes)).batch);
  std::promise<void> first_page;
  std::promise<void> cut;
  std::shared_future<void> connections_cut = cut.get_future().share();
  std::vector<std::string> texts;
  std::promise<absl::Status> done;
  journal->AsyncReplayMessages(
      "long", 1, kMax, kMax,
      [&](const PersistentRepr& e) {
        texts.push_back(*e.payload.As<std::string>());
        if (texts.size() == 1) {
          first_page.set_value();
          connections_cut.wait();
        }
      },
      [&](absl::Status status) { done.set_value(std::move(status)); });
  first_page.get_future().wait();
  TerminateConnections();
  cut.set_value();
  ASSERT_FALSE(HasFatalFailure());
  const absl::Status status = done.get_future().get();
  ASSERT_OK(status);
  std::vector<std::string> expected;
  for (int n = 1; n <= kLong; ++n) expected.push_back(absl::StrCat(n));
  EXPECT_EQ(texts, expected);
}

// An id the server refuses (not valid UTF-8, on a UTF8 server) fails its
// own replay, highest sequence number read and snapshot load, not the
// others answered in the same statement.
TEST_F(PostgresJournalTest, AnIdTheServerRefusesFailsItsOwnReadsAlone) {
  absl::StatusOr<std::vector<std::vector<std::string>>> encoding =
      db_->Query("SHOW server_encoding");
  ASSERT_OK(encoding);
  if ((*encoding)[0][0] != "UTF8")
    GTEST_SKIP() << "server encoding is not UTF8";
  options_.reader_connections = 1;
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  PluginRegistry registry;
  ASSERT_OK(RegisterPostgresPlugins(registry, options_));
  absl::StatusOr<std::unique_ptr<SnapshotStore>> snapshots =
      registry.CreateSnapshotStore(kPostgresSnapshotStorePluginId,
                                   {serialization_});
  ASSERT_OK(snapshots);
  const std::vector<std::string> ids = {"good-1", "bad\xff", "good-2"};
  ASSERT_OK(Write(*journal, "good-1", 1));
  ASSERT_OK(Write(*journal, "good-2", 1));
  ASSERT_OK(Write(*journal, "good-2", 2));
  ASSERT_OK(
      testing::SaveSnapshot(**snapshots, {"good-1", 1, 1},
                            serialization::Payload::Of(std::string("s1"))));
  ASSERT_OK(
      testing::SaveSnapshot(**snapshots, {"good-2", 2, 1},
                            serialization::Payload::Of(std::string("s2"))));

  // A replay holds the reader (and a load the snapshot store's thread)
  // until every read is queued, so that they share statements.
  std::promise<void> queued;
  std::shared_future<void> all_queued = queued.get_future().share();
  std::promise<absl::Status> holder_done;
  journal->AsyncReplayMessages(
      "good-1", 1, kMax, kMax,
      [all_queued](const PersistentRepr&) { all_queued.wait(); },
      [&](absl::Status s) { holder_done.set_value(std::move(s)); });
  std::promise<void> load_holder_done;
  (*snapshots)
      ->AsyncLoad("good-1", SnapshotSelectionCriteria::Latest(), kMax,
                  [&, all_queued](absl::StatusOr<LoadSnapshotResult>) {
                    all_queued.wait();
                    load_holder_done.set_value();
                  });
  struct Answers {
    std::promise<absl::Status> replay;
    std::vector<std::string> texts;
    std::promise<absl::StatusOr<int64_t>> highest;
    std::promise<absl::StatusOr<LoadSnapshotResult>> load;
  };
  std::vector<Answers> answers(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    Answers* a = &answers[i];
    journal->AsyncReplayMessages(
        ids[i], 1, kMax, kMax,
        [a](const PersistentRepr& e) {
          a->texts.push_back(*e.payload.As<std::string>());
        },
        [a](absl::Status s) { a->replay.set_value(std::move(s)); });
    journal->AsyncReadHighestSequenceNr(
        ids[i], 0,
        [a](absl::StatusOr<int64_t> h) { a->highest.set_value(std::move(h)); });
    (*snapshots)
        ->AsyncLoad(ids[i], SnapshotSelectionCriteria::Latest(), kMax,
                    [a](absl::StatusOr<LoadSnapshotResult> r) {
                      a->load.set_value(std::move(r));
                    });
  }
  queued.set_value();
  ASSERT_OK(holder_done.get_future().get());
  load_holder_done.get_future().wait();

  for (size_t i : {size_t{0}, size_t{2}}) {
    const absl::Status replay = answers[i].replay.get_future().get();
    EXPECT_OK(replay) << ids[i];
    absl::StatusOr<int64_t> highest = answers[i].highest.get_future().get();
    ASSERT_OK(highest) << ids[i];
    EXPECT_EQ(*highest, static_cast<int64_t>(i / 2 + 1)) << ids[i];
    EXPECT_EQ(answers[i].texts.size(), i / 2 + 1) << ids[i];
    absl::StatusOr<LoadSnapshotResult> load =
        answers[i].load.get_future().get();
    ASSERT_OK(load) << ids[i];
    ASSERT_TRUE(load->snapshot.has_value()) << ids[i];
    EXPECT_EQ(*load->snapshot->snapshot.As<std::string>(),
              i == 0 ? "s1" : "s2");
  }
  EXPECT_EQ(answers[1].replay.get_future().get().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(answers[1].highest.get_future().get().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(answers[1].load.get_future().get().status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(PostgresJournalTest, AnUnreachableServerFailsTheJournalsCreation) {
  // Port 1 on the loopback: nothing listens there.
  options_.connection_string = "postgresql://postgres@127.0.0.1:1/postgres";
  PluginRegistry registry;
  ASSERT_OK(RegisterPostgresPlugins(registry, options_));
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      registry.CreateJournal(kPostgresJournalPluginId, {serialization_});
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kUnavailable)
      << journal.status();
}

TEST_F(PostgresJournalTest, TwoProcessesCannotBothWriteAStreamsNextNumber) {
  std::unique_ptr<Journal> first = NewJournal();
  std::unique_ptr<Journal> second = NewJournal();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  ASSERT_OK(Write(*first, "p", 1));
  absl::Status again = Write(*second, "p", 1);
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
  EXPECT_THAT(std::string(again.message()), HasSubstr("'p'"));
  ASSERT_OK(Write(*second, "p", 2));
  EXPECT_THAT(Texts(ReplayMessages(*first, "p", 1, kMax, kMax).events),
              ElementsAre("p-1", "p-2"));
}

// libpq quotes a connection string it cannot parse, password and all:
// the plugin says what is wrong without it.
TEST_F(PostgresJournalTest, AConnectionStringThatCannotBeParsedIsNotShown) {
  options_.connection_string = "postgresql://user:secret-pw@[::1/db";
  PluginRegistry registry;
  ASSERT_OK(RegisterPostgresPlugins(registry, options_));
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      registry.CreateJournal(kPostgresJournalPluginId, {serialization_});
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(journal.status().message()),
              Not(HasSubstr("secret-pw")));
}

TEST_F(PostgresJournalTest, RefusesTheTablesOfANewerCairn) {
  ASSERT_NE(NewJournal(), nullptr);  // makes the tables
  ASSERT_OK(db_->Execute("UPDATE cairn_schema SET version = 99"));
  PluginRegistry registry;
  ASSERT_OK(RegisterPostgresPlugins(registry, options_));
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      registry.CreateJournal(kPostgresJournalPluginId, {serialization_});
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(journal.status().message()), HasSubstr("99"));
}

TEST_F(PostgresJournalTest, APasswordVariableThatIsNotSetIsNamed) {
  options_.password_env = "CAIRN_TEST_NO_SUCH_PASSWORD_VARIABLE";
  PluginRegistry registry;
  ASSERT_OK(RegisterPostgresPlugins(registry, options_));
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      registry.CreateJournal(kPostgresJournalPluginId, {serialization_});
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(journal.status().message()),
              HasSubstr("CAIRN_TEST_NO_SUCH_PASSWORD_VARIABLE"));
}

}  // namespace
}  // namespace cairn::persistence
