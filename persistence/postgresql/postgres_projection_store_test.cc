// PostgresProjectionStore against the test server: offsets per projection
// id, shared by every store on the schema; exactly-once transactions
// (their own writes read back, committed with the offset or not at all);
// a commit refused when another run moved the offset; the model read in
// key order by prefix, page after page; older tables brought to the
// current version.
#include "persistence/postgresql/postgres_projection_store.h"

#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using testing::TestDatabase;

class PostgresProjectionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.connection_string = db_->url();
    options_.schema = db_->schema();
    store_ = Open();
  }

  std::shared_ptr<ProjectionStore> Open() {
    absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
        PostgresProjectionStore::Open(options_);
    EXPECT_OK(store);
    return store.ok() ? *store : nullptr;
  }

  std::vector<std::string> Keys(const std::string& prefix) {
    std::vector<std::string> keys;
    absl::Status s =
        store_->ForEach(prefix, [&](std::string_view key, std::string_view) {
          keys.emplace_back(key);
          return true;
        });
    EXPECT_OK(s);
    return keys;
  }

  std::optional<TestDatabase> db_;  // first: dropped after the stores
  PostgresOptions options_;
  std::shared_ptr<ProjectionStore> store_;
};

TEST_F(PostgresProjectionStoreTest, OffsetsAreKeptPerIdForEveryStore) {
  ASSERT_NE(store_, nullptr);
  const ProjectionId a{"totals", "movements"};
  const ProjectionId b{"totals", "other"};
  EXPECT_EQ(*store_->ReadOffset(a), (ProjectionOffset{0, 0}));
  ASSERT_OK(store_->SaveOffset(a, {41, 2}));
  ASSERT_OK(store_->SaveOffset(b, {7, 1}));
  ASSERT_OK(store_->SaveOffset(a, {42, 1}));
  std::shared_ptr<ProjectionStore> other = Open();  // another process's
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(*other->ReadOffset(a), (ProjectionOffset{42, 1}));
  EXPECT_EQ(*other->ReadOffset(b), (ProjectionOffset{7, 1}));
}

TEST_F(PostgresProjectionStoreTest, ATransactionCommitsItsWritesWithTheOffset) {
  ASSERT_NE(store_, nullptr);
  const ProjectionId id{"totals", "movements"};
  {
    ProjectionTransaction tx = store_->Begin();
    tx.Put("total/a", "10");
    tx.Put("total/b", std::string("\0\xff", 2));
    EXPECT_EQ(**tx.Get("total/a"), "10");
    ASSERT_OK(store_->Commit(std::move(tx), id, {0, 0}, {5, 1}));
  }
  EXPECT_EQ(**store_->Get("total/b"), std::string("\0\xff", 2));
  {
    ProjectionTransaction tx = store_->Begin();
    EXPECT_EQ(**tx.Get("total/a"), "10");  // committed, read through
    tx.Put("total/a", "15");
    tx.Delete("total/b");
    EXPECT_FALSE(tx.Get("total/b")->has_value());
    // Nothing reaches the store before the commit.
    EXPECT_EQ(**store_->Get("total/a"), "10");
    ASSERT_OK(store_->Commit(std::move(tx), id, {5, 1}, {6, 1}));
  }
  EXPECT_EQ(**store_->Get("total/a"), "15");
  EXPECT_FALSE(store_->Get("total/b")->has_value());
  EXPECT_EQ(*store_->ReadOffset(id), (ProjectionOffset{6, 1}));
}

TEST_F(PostgresProjectionStoreTest, AFailedCommitStoresNothing) {
  ASSERT_NE(store_, nullptr);
  const ProjectionId id{"totals", "movements"};
  // Another session holds the offsets' table: the commit waits past the
  // call timeout, and the server cancels it.
  options_.call_timeout = absl::Milliseconds(300);
  std::shared_ptr<ProjectionStore> impatient = Open();
  ASSERT_NE(impatient, nullptr);
  ASSERT_OK(impatient->ReadOffset(id));  // connected, prepared
  ASSERT_OK(
      db_->Execute("BEGIN; LOCK TABLE projection_offset IN ACCESS EXCLUSIVE "
                   "MODE"));
  ProjectionTransaction tx = impatient->Begin();
  tx.Put("total/a", "10");
  const absl::Status failed =
      impatient->Commit(std::move(tx), id, {0, 0}, {5, 1});
  ASSERT_OK(db_->Execute("ROLLBACK"));
  EXPECT_EQ(failed.code(), absl::StatusCode::kDeadlineExceeded) << failed;
  EXPECT_THAT(std::string(failed.message()),
              ::testing::HasSubstr("projection 'totals'"));
  EXPECT_FALSE(store_->Get("total/a")->has_value());
  EXPECT_EQ(*store_->ReadOffset(id), (ProjectionOffset{0, 0}));
  // An id PostgreSQL's text cannot hold is refused before anything is sent,
  // and the connection goes on.
  ProjectionTransaction bad = store_->Begin();
  bad.Put("x", "1");
  EXPECT_EQ(
      store_
          ->Commit(std::move(bad), {std::string("a\0b", 3), ""}, {0, 0}, {1, 1})
          .code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(store_->Get("x")->has_value());
}

TEST_F(PostgresProjectionStoreTest, ForEachReadsAPrefixInKeyOrderPageByPage) {
  ASSERT_NE(store_, nullptr);
  ProjectionTransaction tx = store_->Begin();
  for (int i = 0; i < 2500; ++i) {
    tx.Put(absl::StrCat("big/", 100000 + i), "v");
  }
  tx.Put("total/b", "2");
  tx.Put("total/a", "1");
  tx.Put("totals", "x");
  tx.Put(std::string("t\xff", 2), "edge");
  tx.Put(std::string("t\xff\xff", 3), "edge");
  tx.Put("u", "after");
  ASSERT_OK(store_->Commit(std::move(tx), {"p", ""}, {0, 0}, {1, 1}));
  EXPECT_THAT(Keys("total/"), ElementsAre("total/a", "total/b"));
  EXPECT_THAT(
      Keys(std::string("t\xff", 2)),
      ElementsAre(std::string("t\xff", 2), std::string("t\xff\xff", 3)));
  const std::vector<std::string> big = Keys("big/");
  ASSERT_EQ(big.size(), 2500u);
  EXPECT_EQ(big.front(), "big/100000");
  EXPECT_EQ(big.back(), "big/102499");
  EXPECT_EQ(Keys("").size(), 2500u + 6u);
  int seen = 0;
  ASSERT_OK(store_->ForEach(
      "big/", [&](std::string_view, std::string_view) { return ++seen < 3; }));
  EXPECT_EQ(seen, 3);
}

// Two runs of one projection at once (here: two processes' stores) both
// begin at offset 0: the first commit wins, the second is refused and
// stores nothing, and goes on from the winner's offset. Also when the
// first has inserted the offset's row but not committed yet (the second
// waits for it, then fails).
TEST_F(PostgresProjectionStoreTest, ACommitFromAnOffsetThatMovedStoresNothing) {
  ASSERT_NE(store_, nullptr);
  std::shared_ptr<ProjectionStore> other = Open();
  ASSERT_NE(other, nullptr);
  const ProjectionId id{"totals", ""};
  ProjectionTransaction first = store_->Begin();
  first.Put("total/a", "10");
  ASSERT_OK(store_->Commit(std::move(first), id, {0, 0}, {5, 1}));
  ProjectionTransaction second = other->Begin();
  second.Put("total/a", "20");
  second.Put("total/b", "1");
  const absl::Status refused =
      other->Commit(std::move(second), id, {0, 0}, {5, 1});
  EXPECT_EQ(refused.code(), absl::StatusCode::kAborted) << refused;
  EXPECT_THAT(std::string(refused.message()),
              ::testing::HasSubstr("is at offset 5 (1 envelopes), not at 0"));
  EXPECT_EQ(**store_->Get("total/a"), "10");
  EXPECT_FALSE(store_->Get("total/b")->has_value());
  ProjectionTransaction after = other->Begin();
  after.Put("total/a", "11");
  ASSERT_OK(other->Commit(std::move(after), id, {5, 1}, {6, 1}));
  EXPECT_EQ(**store_->Get("total/a"), "11");
  EXPECT_EQ(*store_->ReadOffset(id), (ProjectionOffset{6, 1}));

  const ProjectionId fresh{"fresh", ""};
  ASSERT_OK(
      db_->Execute("BEGIN; SELECT cairn_advance_projection('fresh', "
                   "'', 0, 0, 3, 1)"));
  std::future<absl::Status> racing = std::async(std::launch::async, [&] {
    ProjectionTransaction tx = other->Begin();
    tx.Put("fresh/a", "1");
    return other->Commit(std::move(tx), fresh, {0, 0}, {3, 1});
  });
  // Once the racing commit waits for the open one's row (another session
  // of this test's schema waiting on a lock).
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (true) {
    absl::StatusOr<std::vector<std::vector<std::string>>> waiting =
        db_->Query(absl::StrCat(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
            "'Lock' AND application_name = 'cairn ",
            db_->schema(), "'"));
    ASSERT_OK(waiting);
    if ((*waiting)[0][0] != "0") break;
    ASSERT_LT(absl::Now(), deadline) << "the racing commit never waited";
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_OK(db_->Execute("COMMIT"));
  EXPECT_EQ(racing.get().code(), absl::StatusCode::kAborted);
  EXPECT_FALSE(store_->Get("fresh/a")->has_value());
  EXPECT_EQ(*store_->ReadOffset(fresh), (ProjectionOffset{3, 1}));
}

// A schema of version 1 (no projection tables) or 2 (no offset check) is
// brought to the current version on first use.
TEST_F(PostgresProjectionStoreTest, OlderTablesAreBroughtToTheCurrentVersion) {
  ASSERT_NE(store_, nullptr);
  for (const char* downgrade :
       {"DROP FUNCTION cairn_advance_projection; DROP TABLE "
        "projection_offset, projection_model; UPDATE cairn_schema SET "
        "version = 1",
        "DROP FUNCTION cairn_advance_projection; UPDATE cairn_schema SET "
        "version = 2"}) {
    ASSERT_OK(db_->Execute(downgrade)) << downgrade;
    std::shared_ptr<ProjectionStore> upgraded = Open();
    ASSERT_NE(upgraded, nullptr);
    const ProjectionId id{downgrade, ""};
    ProjectionTransaction tx = upgraded->Begin();
    tx.Put("k", "v");
    ASSERT_OK(upgraded->Commit(std::move(tx), id, {0, 0}, {3, 1}));
    EXPECT_EQ(*upgraded->ReadOffset(id), (ProjectionOffset{3, 1}));
    absl::StatusOr<std::vector<std::vector<std::string>>> version =
        db_->Query("SELECT version FROM cairn_schema");
    ASSERT_OK(version);
    EXPECT_EQ((*version)[0][0], "5");
  }
}

}  // namespace
}  // namespace cairn::persistence
