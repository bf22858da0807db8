// Leases with fencing tokens on PostgreSQL, against a real server (skipped
// without one): a lease is granted to one owner at a time, with a token
// above every earlier one; a holding is renewed, released or lost on
// expiry; and the journal stores a fenced write, and applies a fenced
// delete, only while its holding is current, as the snapshot store does a
// fenced save or delete, so an old holder can never change the store once
// another took over. A takeover waits for a fenced write in flight, and
// comes after it.

#include "persistence/postgresql/postgres_leases.h"

#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
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

using testing::DeleteMessagesTo;
using testing::DeleteSnapshot;
using testing::DeleteSnapshots;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::LoadSnapshot;
using testing::ReplayMessages;
using testing::SaveSnapshot;
using testing::Single;
using testing::TestDatabase;
using testing::Texts;
using testing::WriteMessages;

constexpr int64_t kMax = kMaxSequenceNr;
const absl::Duration kTtl = absl::Seconds(60);

class PostgresLeasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.connection_string = db_->url();
    options_.schema = db_->schema();
    absl::StatusOr<std::unique_ptr<PostgresLeases>> leases =
        PostgresLeases::Open(options_);
    ASSERT_OK(leases);
    leases_ = *std::move(leases);
  }

  std::unique_ptr<Journal> NewJournal() {
    PluginRegistry registry;
    EXPECT_OK(RegisterPostgresPlugins(registry, options_));
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        registry.CreateJournal(kPostgresJournalPluginId, {serialization_});
    EXPECT_OK(journal);
    return journal.ok() ? *std::move(journal) : nullptr;
  }

  std::unique_ptr<SnapshotStore> NewSnapshotStore() {
    PluginRegistry registry;
    EXPECT_OK(RegisterPostgresPlugins(registry, options_));
    absl::StatusOr<std::unique_ptr<SnapshotStore>> store =
        registry.CreateSnapshotStore(kPostgresSnapshotStorePluginId,
                                     {serialization_});
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // The sequence numbers of the snapshots of `id`, newest first.
  std::vector<int64_t> Snapshots(SnapshotStore& store, const std::string& id) {
    std::vector<int64_t> found;
    SnapshotSelectionCriteria criteria = SnapshotSelectionCriteria::Latest();
    while (true) {
      absl::StatusOr<LoadSnapshotResult> loaded =
          LoadSnapshot(store, id, criteria, kMax);
      EXPECT_OK(loaded);
      if (!loaded.ok() || !loaded->snapshot.has_value()) return found;
      found.push_back(loaded->snapshot->metadata.sequence_nr);
      criteria.max_sequence_nr = found.back() - 1;
    }
  }

  // Process a holds "shard-1", then pauses past its holding, and process b
  // takes the shard over: a's fence, then b's.
  std::pair<WriteFence, WriteFence> TakenOver() {
    absl::StatusOr<WriteFence> a =
        leases_->Acquire("shard-1", "process-a", kTtl);
    EXPECT_OK(a);
    Expire("shard-1");
    absl::StatusOr<WriteFence> b =
        leases_->Acquire("shard-1", "process-b", kTtl);
    EXPECT_OK(b);
    if (!a.ok() || !b.ok()) return {};
    return {*a, *b};
  }

  // Writes "<id>-<n>" as sequence number n of `id`, fenced by `fence`.
  absl::Status Write(Journal& journal, const std::string& id, int64_t n,
                     const WriteFence& fence) {
    AtomicWrite write =
        Single(id, n, serialization::Payload::Of(absl::StrCat(id, "-", n)));
    write.fence = fence;
    std::vector<AtomicWrite> writes;
    writes.push_back(std::move(write));
    return WriteMessages(journal, std::move(writes)).batch;
  }

  // Makes the holding of `lease` run out now, as time passing would.
  void Expire(const std::string& lease) {
    ASSERT_OK(
        db_->Execute(absl::StrCat("UPDATE cairn_lease SET expires_at = "
                                  "clock_timestamp() - interval '1 second' "
                                  "WHERE name = '",
                                  lease, "'")));
  }

  std::optional<TestDatabase> db_;  // first: dropped after the rest
  PostgresOptions options_;
  std::unique_ptr<PostgresLeases> leases_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
};

TEST_F(PostgresLeasesTest, GrantsALeaseToOneOwnerAtATime) {
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_OK(a);
  EXPECT_EQ(a->lease, "shard-1");
  EXPECT_EQ(a->owner, "process-a");
  EXPECT_EQ(a->token, 1);

  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("'process-a'"));
  // Other leases are separate.
  EXPECT_OK(leases_->Acquire("shard-2", "process-b", kTtl));

  EXPECT_OK(leases_->Renew(*a, kTtl));
  ASSERT_OK(leases_->Release(*a));
  EXPECT_EQ(leases_->Renew(*a, kTtl).code(),
            absl::StatusCode::kFailedPrecondition);
  b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_OK(b);
  EXPECT_EQ(b->token, 2);  // tokens only grow, also across releases
}

TEST_F(PostgresLeasesTest, AnExpiredHoldingIsLostAndCanBeTakenOver) {
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_OK(a);
  Expire("shard-1");
  absl::Status renewed = leases_->Renew(*a, kTtl);
  EXPECT_EQ(renewed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(renewed.message()), HasSubstr("lost"));
  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_OK(b);
  EXPECT_EQ(b->token, 2);
}

TEST_F(PostgresLeasesTest, TheHolderIsTheCurrentHoldingOnTheServersClock) {
  ASSERT_OK_AND_ASSIGN(std::optional<LeaseHolding> held,
                       leases_->Holder("shard-1"));
  EXPECT_FALSE(held.has_value());  // never granted
  ASSERT_OK_AND_ASSIGN(WriteFence a,
                       leases_->Acquire("shard-1", "process-a", kTtl));
  ASSERT_OK_AND_ASSIGN(held, leases_->Holder("shard-1"));
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->owner, "process-a");
  EXPECT_EQ(held->token, a.token);
  // The server's clock: within a minute of this one, kTtl ahead of it.
  EXPECT_GT(held->expires, absl::Now() - absl::Minutes(1));
  EXPECT_LT(held->expires, absl::Now() + kTtl + absl::Minutes(1));

  Expire("shard-1");
  ASSERT_OK_AND_ASSIGN(held, leases_->Holder("shard-1"));
  EXPECT_FALSE(held.has_value());
  ASSERT_OK_AND_ASSIGN(WriteFence b,
                       leases_->Acquire("shard-1", "process-b", kTtl));
  ASSERT_OK_AND_ASSIGN(held, leases_->Holder("shard-1"));
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->owner, "process-b");
  EXPECT_EQ(held->token, b.token);
  ASSERT_OK(leases_->Release(b));
  ASSERT_OK_AND_ASSIGN(held, leases_->Holder("shard-1"));
  EXPECT_FALSE(held.has_value());
}

TEST_F(PostgresLeasesTest, AFencedWriteIsStoredOnlyWhileItsHoldingIsCurrent) {
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_OK(a);
  ASSERT_OK(Write(*journal, "account-7", 1, *a));

  // Process a pauses past its lease; process b takes the shard over.
  Expire("shard-1");
  absl::Status expired = Write(*journal, "account-7", 2, *a);
  EXPECT_EQ(expired.code(), absl::StatusCode::kFailedPrecondition) << expired;
  EXPECT_THAT(std::string(expired.message()), HasSubstr("expired"));
  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_OK(b);
  ASSERT_OK(Write(*journal, "account-7", 2, *b));

  // Process a wakes up and writes what it believes is next: refused.
  absl::Status stale = Write(*journal, "account-7", 3, *a);
  EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition) << stale;
  EXPECT_THAT(std::string(stale.message()), HasSubstr("'process-b'"));
  EXPECT_THAT(
      Texts(ReplayMessages(*journal, "account-7", 1, kMax, kMax).events),
      ElementsAre("account-7-1", "account-7-2"));
  // Even for a stream b never wrote.
  EXPECT_EQ(Write(*journal, "account-8", 1, *a).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(Write(*journal, "account-7", 3, *b));
}

TEST_F(PostgresLeasesTest, AFencedDeleteIsAppliedOnlyWhileItsHoldingIsCurrent) {
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_OK(a);
  for (int64_t n = 1; n <= 3; ++n) {
    ASSERT_OK(Write(*journal, "account-7", n, *a));
  }
  ASSERT_OK(DeleteMessagesTo(*journal, "account-7", 1, *a));

  Expire("shard-1");
  absl::Status expired = DeleteMessagesTo(*journal, "account-7", 2, *a);
  EXPECT_EQ(expired.code(), absl::StatusCode::kFailedPrecondition) << expired;
  EXPECT_THAT(std::string(expired.message()), HasSubstr("expired"));
  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_OK(b);

  // Process a wakes up and deletes what it believes it may: refused,
  // nothing deleted.
  absl::Status stale = DeleteMessagesTo(*journal, "account-7", kMax, *a);
  EXPECT_EQ(stale.code(), absl::StatusCode::kFailedPrecondition) << stale;
  EXPECT_THAT(std::string(stale.message()),
              HasSubstr("persistence id 'account-7': events up to"));
  EXPECT_THAT(std::string(stale.message()), HasSubstr("'shard-1'"));
  EXPECT_THAT(std::string(stale.message()), HasSubstr("'process-b'"));
  EXPECT_THAT(
      Texts(ReplayMessages(*journal, "account-7", 1, kMax, kMax).events),
      ElementsAre("account-7-2", "account-7-3"));

  // The current holder's delete is applied.
  ASSERT_OK(DeleteMessagesTo(*journal, "account-7", 2, *b));
  EXPECT_THAT(
      Texts(ReplayMessages(*journal, "account-7", 1, kMax, kMax).events),
      ElementsAre("account-7-3"));
  // An unfenced delete is not checked (an actor outside every scope).
  ASSERT_OK(DeleteMessagesTo(*journal, "account-7", kMax));
  EXPECT_TRUE(
      ReplayMessages(*journal, "account-7", 1, kMax, kMax).events.empty());
}

TEST_F(PostgresLeasesTest,
       FencedSnapshotSavesAndDeletesAreAppliedOnlyWhileTheirHoldingIsCurrent) {
  std::unique_ptr<SnapshotStore> store = NewSnapshotStore();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_OK(a);
  ASSERT_OK(SaveSnapshot(*store, {"account-7", 1, 100},
                         serialization::Payload::Of(std::string("s-1")), *a));
  ASSERT_OK(SaveSnapshot(*store, {"account-7", 2, 200},
                         serialization::Payload::Of(std::string("s-2")), *a));

  Expire("shard-1");
  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_OK(b);

  // Process a wakes up: its save and deletes are refused, naming the lease,
  // and change nothing.
  absl::Status saved =
      SaveSnapshot(*store, {"account-7", 3, 300},
                   serialization::Payload::Of(std::string("s-3")), *a);
  EXPECT_EQ(saved.code(), absl::StatusCode::kFailedPrecondition) << saved;
  EXPECT_THAT(std::string(saved.message()), HasSubstr("not saved"));
  EXPECT_THAT(std::string(saved.message()), HasSubstr("'process-b'"));
  absl::Status replaced =
      SaveSnapshot(*store, {"account-7", 2, 250},
                   serialization::Payload::Of(std::string("stale")), *a);
  EXPECT_EQ(replaced.code(), absl::StatusCode::kFailedPrecondition) << replaced;
  absl::Status deleted = DeleteSnapshot(*store, {"account-7", 2, 0}, *a);
  EXPECT_EQ(deleted.code(), absl::StatusCode::kFailedPrecondition) << deleted;
  EXPECT_THAT(std::string(deleted.message()), HasSubstr("'shard-1'"));
  absl::Status deleted_all = DeleteSnapshots(
      *store, "account-7", SnapshotSelectionCriteria::Latest(), *a);
  EXPECT_EQ(deleted_all.code(), absl::StatusCode::kFailedPrecondition)
      << deleted_all;
  EXPECT_THAT(Snapshots(*store, "account-7"), ElementsAre(2, 1));
  absl::StatusOr<LoadSnapshotResult> latest = LoadSnapshot(
      *store, "account-7", SnapshotSelectionCriteria::Latest(), kMax);
  ASSERT_OK(latest);
  ASSERT_TRUE(latest->snapshot.has_value());
  ASSERT_NE(latest->snapshot->snapshot.As<std::string>(), nullptr);
  EXPECT_EQ(*latest->snapshot->snapshot.As<std::string>(), "s-2");
  EXPECT_EQ(latest->snapshot->metadata.timestamp, 200);

  // The current holder's are applied.
  EXPECT_OK(SaveSnapshot(*store, {"account-7", 3, 300},
                         serialization::Payload::Of(std::string("s-3")), *b));
  EXPECT_OK(DeleteSnapshot(*store, {"account-7", 2, 0}, *b));
  EXPECT_THAT(Snapshots(*store, "account-7"), ElementsAre(3, 1));
  SnapshotSelectionCriteria up_to_1;
  up_to_1.max_sequence_nr = 1;
  EXPECT_OK(DeleteSnapshots(*store, "account-7", up_to_1, *b));
  EXPECT_THAT(Snapshots(*store, "account-7"), ElementsAre(3));
}

TEST_F(PostgresLeasesTest, ARefusedSnapshotOperationFailsAloneInItsPipeline) {
  std::unique_ptr<SnapshotStore> store = NewSnapshotStore();
  ASSERT_NE(store, nullptr);
  auto [a, b] = TakenOver();
  ASSERT_EQ(b.token, 2);
  // Submitted back to back, so that they usually share a pipeline: each is
  // its own transaction, and a refused check fails its own operation only.
  std::vector<std::promise<absl::Status>> outcomes(4);
  auto to = [&outcomes](int i) {
    return [&outcomes, i](absl::Status s) { outcomes[i].set_value(s); };
  };
  store->AsyncSave({"account-7", 1, 100},
                   serialization::Payload::Of(std::string("b-1")), b, to(0));
  store->AsyncSave({"account-7", 2, 200},
                   serialization::Payload::Of(std::string("a-2")), a, to(1));
  store->AsyncSave({"account-8", 1, 100},
                   serialization::Payload::Of(std::string("b-8")), b, to(2));
  store->AsyncDelete({"account-7", 1, 0}, a, to(3));
  EXPECT_OK(outcomes[0].get_future().get());
  EXPECT_EQ(outcomes[1].get_future().get().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(outcomes[2].get_future().get());
  EXPECT_EQ(outcomes[3].get_future().get().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(Snapshots(*store, "account-7"), ElementsAre(1));
  EXPECT_THAT(Snapshots(*store, "account-8"), ElementsAre(1));
}

TEST_F(PostgresLeasesTest, ATakeoverWaitsForAFencedWriteInFlight) {
  // Watches the server from outside the write's transaction (inside one,
  // pg_stat_activity does not change).
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(monitor);
  auto until = [&monitor](const std::string& sql) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      absl::StatusOr<std::vector<std::vector<std::string>>> rows =
          monitor.Query(sql);
      if (rows.ok() && (*rows)[0][0] == "t") return true;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return false;
  };
  absl::StatusOr<WriteFence> a =
      leases_->Acquire("shard-1", "process-a", absl::Seconds(1));
  ASSERT_OK(a);
  // A fenced write's transaction, as the journal makes it, held open after
  // its check, while the holding runs out.
  ASSERT_OK(
      db_->Execute(absl::StrCat("BEGIN; SELECT cairn_check_lease("
                                "'shard-1', 'process-a', ",
                                a->token, ")")));
  ASSERT_TRUE(until(
      absl::StrCat("SELECT bool_and(expires_at < clock_timestamp()) FROM ",
                   db_->schema(), ".cairn_lease")));
  absl::StatusOr<WriteFence> b = absl::UnknownError("not yet");
  std::thread takeover(
      [&] { b = leases_->Acquire("shard-1", "process-b", kTtl); });
  // The takeover waits for the write's transaction...
  EXPECT_TRUE(until(absl::StrCat(
      "SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event_type = "
      "'Lock' AND application_name = 'cairn ",
      db_->schema(), "'")))
      << "the takeover did not wait for the write";
  // ...and is granted once it committed.
  ASSERT_OK(db_->Execute("COMMIT"));
  takeover.join();
  ASSERT_OK(b);
  EXPECT_EQ(b->token, 2);
}

}  // namespace
}  // namespace cairn::persistence
