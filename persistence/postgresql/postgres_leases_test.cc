// Leases with fencing tokens on PostgreSQL, against a real server (skipped
// without one): a lease is granted to one owner at a time, with a token
// above every earlier one; a holding is renewed, released or lost on
// expiry; and the journal stores a fenced write only while its holding is
// current, so an old holder can never write once another took over. A
// takeover waits for a fenced write in flight, and comes after it.

#include "persistence/postgresql/postgres_leases.h"

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/postgresql_options.h"
#include "persistence/postgresql/postgresql_plugin.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ReplayMessages;
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
    ASSERT_TRUE(leases.ok()) << leases.status();
    leases_ = *std::move(leases);
  }

  std::unique_ptr<Journal> NewJournal() {
    PluginRegistry registry;
    EXPECT_TRUE(RegisterPostgresPlugins(registry, options_).ok());
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        registry.CreateJournal(kPostgresJournalPluginId, {serialization_});
    EXPECT_TRUE(journal.ok()) << journal.status();
    return journal.ok() ? *std::move(journal) : nullptr;
  }

  // Writes "<id>-<n>" as sequence number n of `id`, fenced by `fence`.
  absl::Status Write(Journal& journal, const std::string& id, int64_t n,
                     const WriteFence& fence) {
    AtomicWrite write = Single(id, n, Payload::Of(absl::StrCat(id, "-", n)));
    write.fence = fence;
    std::vector<AtomicWrite> writes;
    writes.push_back(std::move(write));
    return WriteMessages(journal, std::move(writes)).batch;
  }

  // Makes the holding of `lease` run out now, as time passing would.
  void Expire(const std::string& lease) {
    ASSERT_TRUE(
        db_->Execute(absl::StrCat("UPDATE cairn_lease SET expires_at = "
                                  "clock_timestamp() - interval '1 second' "
                                  "WHERE name = '",
                                  lease, "'"))
            .ok());
  }

  std::optional<TestDatabase> db_;  // first: dropped after the rest
  PostgresOptions options_;
  std::unique_ptr<PostgresLeases> leases_;
  std::shared_ptr<const SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
};

TEST_F(PostgresLeasesTest, GrantsALeaseToOneOwnerAtATime) {
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->lease, "shard-1");
  EXPECT_EQ(a->owner, "process-a");
  EXPECT_EQ(a->token, 1);

  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(b.status().message()), HasSubstr("'process-a'"));
  // Other leases are separate.
  EXPECT_TRUE(leases_->Acquire("shard-2", "process-b", kTtl).ok());

  EXPECT_TRUE(leases_->Renew(*a, kTtl).ok());
  ASSERT_TRUE(leases_->Release(*a).ok());
  EXPECT_EQ(leases_->Renew(*a, kTtl).code(),
            absl::StatusCode::kFailedPrecondition);
  b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->token, 2);  // tokens only grow, also across releases
}

TEST_F(PostgresLeasesTest, AnExpiredHoldingIsLostAndCanBeTakenOver) {
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_TRUE(a.ok()) << a.status();
  Expire("shard-1");
  absl::Status renewed = leases_->Renew(*a, kTtl);
  EXPECT_EQ(renewed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(renewed.message()), HasSubstr("lost"));
  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->token, 2);
}

TEST_F(PostgresLeasesTest, AFencedWriteIsStoredOnlyWhileItsHoldingIsCurrent) {
  std::unique_ptr<Journal> journal = NewJournal();
  ASSERT_NE(journal, nullptr);
  absl::StatusOr<WriteFence> a = leases_->Acquire("shard-1", "process-a", kTtl);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(Write(*journal, "account-7", 1, *a).ok());

  // Process a pauses past its lease; process b takes the shard over.
  Expire("shard-1");
  absl::Status expired = Write(*journal, "account-7", 2, *a);
  EXPECT_EQ(expired.code(), absl::StatusCode::kFailedPrecondition) << expired;
  EXPECT_THAT(std::string(expired.message()), HasSubstr("expired"));
  absl::StatusOr<WriteFence> b = leases_->Acquire("shard-1", "process-b", kTtl);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(Write(*journal, "account-7", 2, *b).ok());

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
  EXPECT_TRUE(Write(*journal, "account-7", 3, *b).ok());
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
  ASSERT_TRUE(a.ok()) << a.status();
  // A fenced write's transaction, as the journal makes it, held open after
  // its check, while the holding runs out.
  ASSERT_TRUE(db_->Execute(absl::StrCat("BEGIN; SELECT cairn_check_lease("
                                        "'shard-1', 'process-a', ",
                                        a->token, ")"))
                  .ok());
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
  ASSERT_TRUE(db_->Execute("COMMIT").ok());
  takeover.join();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->token, 2);
}

}  // namespace
}  // namespace cairn::persistence
