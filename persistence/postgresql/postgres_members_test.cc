// PostgresMembers against a real server (skipped without one): the
// MemberStore contract (persistence/storage/member_store.h) on the
// server's clock: a join writes an up row and replaces another
// incarnation's, a renewal extends it, the calls for an incarnation that
// is gone fail or leave the row alone, a row is removed as expired only
// once it ran out and is not removed twice over a lost connection, Read
// orders by address bytewise also on a table made by hand; and Watch: a change
// written by another process (another store, another pool) reaches the
// callback, a renewal is not announced, a destroyed watch calls no more, two
// schemas do not hear each other, and a watch whose connection the server cut
// comes back and calls.

#include "persistence/postgresql/postgres_members.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/member_store.h"
#include "persistence/storage/testing/member_store_spec.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TestDatabase;

const absl::Duration kTtl = absl::Seconds(60);
const absl::Duration kPatience = absl::Seconds(30);

MemberRecord Member(const std::string& address, int64_t uid,
                    std::vector<std::string> roles = {}) {
  MemberRecord member;
  member.address = address;
  member.uid = uid;
  member.roles = std::move(roles);
  return member;
}

// RemoveIfExpired's answer; none if it failed (a test failure).
std::optional<bool> Removed(const absl::StatusOr<bool>& removed) {
  EXPECT_OK(removed);
  return removed.ok() ? std::optional(*removed) : std::nullopt;
}

// The row at `address` in `snapshot`, if any.
std::optional<MemberRecord> Row(const MemberSnapshot& snapshot,
                                const std::string& address) {
  for (const MemberRecord& member : snapshot.members) {
    if (member.address == address) return member;
  }
  return std::nullopt;
}

// What a watch's callback saw: at each call it reads the store, as a
// watcher does. Calls must never overlap.
class Recorder {
 public:
  explicit Recorder(MemberStore& store) : store_(store) {}

  std::function<void()> Callback() {
    return [this] { Record(); };
  }

  int calls() {
    base::MutexLock lock(&mu_);
    return static_cast<int>(seen_.size());
  }
  bool overlapped() {
    base::MutexLock lock(&mu_);
    return overlapped_;
  }

  // What the call numbered `index` (from 0) read, once it was made; null
  // if it was not made by the deadline or its read failed.
  std::optional<MemberSnapshot> Await(int index) {
    const absl::Time deadline = absl::Now() + kPatience;
    base::MutexLock lock(&mu_);
    while (static_cast<int>(seen_.size()) <= index) {
      if (changed_.WaitWithDeadline(&mu_, deadline)) return std::nullopt;
    }
    return seen_[index];
  }

  // Whether a call numbered `from` or later read a snapshot satisfying
  // `done`, by the deadline.
  bool AwaitSeen(int from,
                 const std::function<bool(const MemberSnapshot&)>& done) {
    for (int index = from;; ++index) {
      std::optional<MemberSnapshot> seen = Await(index);
      if (!seen.has_value()) return false;
      if (done(*seen)) return true;
    }
  }

 private:
  void Record() {
    {
      base::MutexLock lock(&mu_);
      if (inside_) overlapped_ = true;
      inside_ = true;
    }
    absl::StatusOr<MemberSnapshot> read = store_.Read();
    base::MutexLock lock(&mu_);
    inside_ = false;
    seen_.push_back(read.ok() ? std::optional(*std::move(read)) : std::nullopt);
    changed_.SignalAll();
  }

  MemberStore& store_;
  base::Mutex mu_;
  base::CondVar changed_;
  std::vector<std::optional<MemberSnapshot>> seen_ ABSL_GUARDED_BY(mu_);
  bool inside_ ABSL_GUARDED_BY(mu_) = false;
  bool overlapped_ ABSL_GUARDED_BY(mu_) = false;
};

class PostgresMembersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    options_.connection_string = db_->url();
    options_.schema = db_->schema();
    options_.reconnect_min_backoff = absl::Milliseconds(10);
    options_.reconnect_max_backoff = absl::Milliseconds(200);
    members_ = Open();
    ASSERT_NE(members_, nullptr);
  }

  std::unique_ptr<PostgresMembers> Open() {
    absl::StatusOr<std::unique_ptr<PostgresMembers>> members =
        PostgresMembers::Open(options_);
    EXPECT_OK(members);
    return members.ok() ? *std::move(members) : nullptr;
  }

  MemberSnapshot Read() {
    absl::StatusOr<MemberSnapshot> snapshot = members_->Read();
    EXPECT_OK(snapshot);
    return snapshot.ok() ? *std::move(snapshot) : MemberSnapshot();
  }

  // The server's clock now.
  absl::Time ServerNow() {
    absl::StatusOr<std::vector<std::vector<std::string>>> rows = db_->Query(
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint");
    EXPECT_OK(rows);
    return rows.ok() ? absl::FromUnixMicros(std::stoll((*rows)[0][0]))
                     : absl::InfinitePast();
  }

  // Makes the row at `address` run out now, as time passing would.
  void Expire(const std::string& address) {
    ASSERT_OK(db_->Execute(
        absl::StrCat("UPDATE cairn_member SET expires_at = clock_timestamp() "
                     "- interval '1 second' WHERE address = '",
                     address, "'")));
  }

  std::optional<TestDatabase> db_;  // first: dropped after the rest
  PostgresOptions options_;
  std::unique_ptr<PostgresMembers> members_;
};

TEST_F(PostgresMembersTest, JoinWritesAnUpRowOnTheServersClock) {
  MemberRecord member =
      Member("akka://cluster@10.0.0.1:2552", 7,
             {"backend", "", "a \"quoted\", {braced} \\ role", "frontend"});
  member.status = MemberStatus::kExiting;   // not read by Join...
  member.expires = absl::InfiniteFuture();  // ...nor this
  const absl::Time before = ServerNow();
  ASSERT_OK(members_->Join(member, kTtl));
  const absl::Time after = ServerNow();

  MemberSnapshot snapshot = Read();
  ASSERT_EQ(snapshot.members.size(), 1u);
  const MemberRecord& row = snapshot.members[0];
  EXPECT_EQ(row.address, member.address);
  EXPECT_EQ(row.uid, 7);
  EXPECT_EQ(row.roles, member.roles);  // in the order given
  EXPECT_EQ(row.status, MemberStatus::kUp);
  // Its expiry is the server's time of the join plus the ttl, and Read's
  // clock the server's time of the read.
  EXPECT_GE(row.expires - kTtl, before);
  EXPECT_LE(row.expires - kTtl, after);
  EXPECT_GE(snapshot.now, after);
  EXPECT_LE(snapshot.now, ServerNow());
}

TEST_F(PostgresMembersTest, ReadGivesEveryRowByAddressAndTheClock) {
  MemberSnapshot empty = Read();
  EXPECT_TRUE(empty.members.empty());
  EXPECT_NE(empty.now, absl::Time());
  EXPECT_LE(empty.now, ServerNow());

  // Bytewise order, whatever the database's collation: upper case first,
  // "10" before "3".
  for (const char* address :
       {"akka://c@h:3", "akka://c@h:10", "akka://C@h:1", "akka://c@h:2"}) {
    ASSERT_OK(members_->Join(Member(address, 1), kTtl));
  }
  Expire("akka://c@h:2");  // expired rows too
  std::vector<std::string> addresses;
  for (const MemberRecord& member : Read().members) {
    addresses.push_back(member.address);
  }
  EXPECT_THAT(addresses, ElementsAre("akka://C@h:1", "akka://c@h:10",
                                     "akka://c@h:2", "akka://c@h:3"));
  MemberSnapshot snapshot = Read();
  EXPECT_LE(Row(snapshot, "akka://c@h:2")->expires, snapshot.now);
  EXPECT_GT(Row(snapshot, "akka://c@h:3")->expires, snapshot.now);
}

TEST_F(PostgresMembersTest, AJoinReplacesAnotherIncarnationAtTheAddress) {
  const std::string address = "akka://c@h:1";
  ASSERT_OK(members_->Join(Member(address, 1, {"a"}), kTtl));
  ASSERT_OK(members_->SetStatus(address, 1, MemberStatus::kLeaving));
  ASSERT_OK(members_->Join(Member(address, 2, {"b"}), kTtl));

  MemberSnapshot snapshot = Read();
  ASSERT_EQ(snapshot.members.size(), 1u);
  EXPECT_EQ(snapshot.members[0].uid, 2);
  EXPECT_THAT(snapshot.members[0].roles, ElementsAre("b"));
  EXPECT_EQ(snapshot.members[0].status, MemberStatus::kUp);

  // The old incarnation is gone: its calls fail, or leave the new row.
  absl::Status renewed = members_->Renew(address, 1, kTtl);
  EXPECT_EQ(renewed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(renewed.message()), HasSubstr("'akka://c@h:1'"));
  EXPECT_EQ(members_->SetStatus(address, 1, MemberStatus::kExiting).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(members_->Remove(address, 1));
  Expire(address);
  EXPECT_EQ(Removed(members_->RemoveIfExpired(address, 1)), false);
  snapshot = Read();
  ASSERT_EQ(snapshot.members.size(), 1u);
  EXPECT_EQ(snapshot.members[0].uid, 2);
  EXPECT_EQ(snapshot.members[0].status, MemberStatus::kUp);
}

TEST_F(PostgresMembersTest, JoiningAgainRenewsTheRowAndSetsItUp) {
  const std::string address = "akka://c@h:1";
  ASSERT_OK(members_->Join(Member(address, 1), kTtl));
  ASSERT_OK(members_->SetStatus(address, 1, MemberStatus::kLeaving));
  const absl::Time first = Read().members[0].expires;
  ASSERT_OK(members_->Join(Member(address, 1), 2 * kTtl));
  MemberSnapshot snapshot = Read();
  EXPECT_EQ(snapshot.members[0].status, MemberStatus::kUp);
  EXPECT_GT(snapshot.members[0].expires, first);
}

TEST_F(PostgresMembersTest, RenewExtendsTheRowUntilItIsGone) {
  const std::string address = "akka://c@h:1";
  ASSERT_OK(members_->Join(Member(address, 1, {"r"}), kTtl));
  ASSERT_OK(members_->SetStatus(address, 1, MemberStatus::kLeaving));
  const absl::Time first = Read().members[0].expires;
  ASSERT_OK(members_->Renew(address, 1, 2 * kTtl));
  MemberSnapshot snapshot = Read();
  EXPECT_GT(snapshot.members[0].expires, first);
  // Only the expiry moves.
  EXPECT_EQ(snapshot.members[0].status, MemberStatus::kLeaving);
  EXPECT_THAT(snapshot.members[0].roles, ElementsAre("r"));

  ASSERT_OK(members_->Remove(address, 1));
  EXPECT_EQ(members_->Renew(address, 1, kTtl).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(members_->Renew("akka://c@never:1", 1, kTtl).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Read().members.empty());  // a renewal makes no row
}

TEST_F(PostgresMembersTest, SetStatusChangesTheRowUntilItIsGone) {
  const std::string address = "akka://c@h:1";
  ASSERT_OK(members_->Join(Member(address, 1), kTtl));
  ASSERT_OK(members_->SetStatus(address, 1, MemberStatus::kLeaving));
  EXPECT_EQ(Read().members[0].status, MemberStatus::kLeaving);
  ASSERT_OK(members_->SetStatus(address, 1, MemberStatus::kExiting));
  EXPECT_EQ(Read().members[0].status, MemberStatus::kExiting);

  ASSERT_OK(members_->Remove(address, 1));
  EXPECT_TRUE(Read().members.empty());
  EXPECT_EQ(members_->SetStatus(address, 1, MemberStatus::kUp).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Read().members.empty());
  EXPECT_OK(members_->Remove(address, 1));  // gone already: OK
}

TEST_F(PostgresMembersTest, ARowIsRemovedAsExpiredOnlyOnceItRanOut) {
  const std::string address = "akka://c@h:1";
  ASSERT_OK(members_->Join(Member(address, 1), kTtl));
  EXPECT_EQ(Removed(members_->RemoveIfExpired(address, 1)), false);
  EXPECT_EQ(Read().members.size(), 1u);

  // A short time to live, run out on the server's clock.
  ASSERT_OK(members_->Join(Member(address, 1), absl::Milliseconds(200)));
  const absl::Time deadline = absl::Now() + kPatience;
  while (true) {
    MemberSnapshot snapshot = Read();
    ASSERT_EQ(snapshot.members.size(), 1u);
    if (snapshot.members[0].expires <= snapshot.now) break;
    ASSERT_LT(absl::Now(), deadline) << "the row never ran out";
    absl::SleepFor(absl::Milliseconds(20));  // polling the condition
  }
  EXPECT_EQ(Removed(members_->RemoveIfExpired(address, 1)), true);
  EXPECT_TRUE(Read().members.empty());
  EXPECT_EQ(Removed(members_->RemoveIfExpired(address, 1)), false);

  // Run out, then renewed before a peer's verdict: it stays.
  ASSERT_OK(members_->Join(Member(address, 1), kTtl));
  Expire(address);
  ASSERT_OK(members_->Renew(address, 1, kTtl));
  EXPECT_EQ(Removed(members_->RemoveIfExpired(address, 1)), false);
  EXPECT_EQ(Read().members.size(), 1u);
}

// Whether the removal of a lost connection committed is not known: a
// repeat would find the row gone and answer false, though it was removed.
// So it is not repeated: Unavailable, and the caller asks again. A read
// is repeated on a new connection.
TEST_F(PostgresMembersTest, ARemovalAsExpiredOnALostConnectionIsNotRepeated) {
  const std::string address = "akka://c@h:1";
  ASSERT_OK(members_->Join(Member(address, 1), kTtl));
  Expire(address);
  // The pool's connection (each call above ran alone) cut by the server.
  auto cut_pool = [&] {
    absl::StatusOr<std::vector<std::vector<std::string>>> terminated =
        db_->Query(absl::StrCat(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = 'cairn ",
            db_->schema(), "'"));
    ASSERT_OK(terminated);
    ASSERT_EQ((*terminated)[0][0], "1");
  };
  cut_pool();
  EXPECT_EQ(Read().members.size(), 1u);

  cut_pool();
  EXPECT_EQ(members_->RemoveIfExpired(address, 1).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(Read().members.size(), 1u);  // not sent: the connection was gone
  EXPECT_EQ(Removed(members_->RemoveIfExpired(address, 1)), true);
}

// A table made by hand, with the database's or another collation for
// address: Read still orders bytewise ("B" before "a"; not so in ICU's).
TEST_F(PostgresMembersTest, ReadOrdersBytewiseWhateverTheColumnsCollation) {
  absl::StatusOr<std::vector<std::vector<std::string>>> icu = db_->Query(
      "SELECT count(*) FROM pg_collation WHERE collname = 'und-x-icu'");
  ASSERT_OK(icu);
  if ((*icu)[0][0] == "0") GTEST_SKIP() << "the server has no ICU collation";
  ASSERT_OK(
      db_->Execute("ALTER TABLE cairn_member ALTER COLUMN address TYPE text "
                   "COLLATE \"und-x-icu\""));
  members_ = Open();
  ASSERT_NE(members_, nullptr);
  for (const char* address : {"akka://a@h:1", "akka://B@h:1"}) {
    ASSERT_OK(members_->Join(Member(address, 1), kTtl));
  }
  std::vector<std::string> addresses;
  for (const MemberRecord& member : Read().members) {
    addresses.push_back(member.address);
  }
  EXPECT_THAT(addresses, ElementsAre("akka://B@h:1", "akka://a@h:1"));
}

TEST_F(PostgresMembersTest, RefusesBadInputWritingNothing) {
  auto code = [](const absl::Status& status) { return status.code(); };
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(code(members_->Join(Member("", 1), kTtl)), kInvalid);
  EXPECT_EQ(code(members_->Join(Member("a", 0), kTtl)), kInvalid);
  EXPECT_EQ(code(members_->Join(Member("a", 1), absl::ZeroDuration())),
            kInvalid);
  EXPECT_EQ(code(members_->Join(Member("a", 1), -kTtl)), kInvalid);
  EXPECT_EQ(code(members_->Join(Member(std::string("a\0b", 3), 1), kTtl)),
            kInvalid);
  EXPECT_EQ(code(members_->Join(Member("a", 1, {std::string("r\0", 2)}), kTtl)),
            kInvalid);
  EXPECT_EQ(code(members_->Renew("", 1, kTtl)), kInvalid);
  EXPECT_EQ(code(members_->Renew("a", 0, kTtl)), kInvalid);
  EXPECT_EQ(code(members_->Renew("a", 1, absl::ZeroDuration())), kInvalid);
  EXPECT_EQ(code(members_->SetStatus("", 1, MemberStatus::kUp)), kInvalid);
  EXPECT_EQ(code(members_->SetStatus("a", 0, MemberStatus::kUp)), kInvalid);
  EXPECT_EQ(code(members_->Remove("", 1)), kInvalid);
  EXPECT_EQ(code(members_->Remove("a", 0)), kInvalid);
  EXPECT_EQ(code(members_->RemoveIfExpired("", 1).status()), kInvalid);
  EXPECT_EQ(code(members_->RemoveIfExpired("a", 0).status()), kInvalid);
  EXPECT_EQ(code(members_->Watch(nullptr).status()), kInvalid);
  EXPECT_TRUE(Read().members.empty());
}

// A schema made before members existed (version 3) gets their table on
// first use.
TEST_F(PostgresMembersTest, AnOlderSchemaGetsTheMembersTable) {
  ASSERT_OK(db_->Execute(
      "DROP TABLE cairn_member; UPDATE cairn_schema SET version = 3"));
  members_ = Open();
  ASSERT_NE(members_, nullptr);
  ASSERT_OK(members_->Join(Member("akka://c@h:1", 1), kTtl));
  EXPECT_EQ(Read().members.size(), 1u);
  absl::StatusOr<std::vector<std::vector<std::string>>> version =
      db_->Query("SELECT version FROM cairn_schema");
  ASSERT_OK(version);
  EXPECT_EQ((*version)[0][0], "5");
}

TEST_F(PostgresMembersTest, ChangesByAnotherProcessReachTheWatch) {
  Recorder recorder(*members_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> watch,
                       members_->Watch(recorder.Callback()));
  // Another process: a store of its own, with a pool of its own.
  std::unique_ptr<PostgresMembers> other = Open();
  ASSERT_NE(other, nullptr);
  const std::string address = "akka://c@h:1";
  auto status_is = [&](MemberStatus status) {
    return [&address, status](const MemberSnapshot& snapshot) {
      std::optional<MemberRecord> row = Row(snapshot, address);
      return row.has_value() && row->status == status;
    };
  };
  auto gone = [&address](const MemberSnapshot& snapshot) {
    return !Row(snapshot, address).has_value();
  };

  int from = recorder.calls();
  ASSERT_OK(other->Join(Member(address, 1), kTtl));
  EXPECT_TRUE(recorder.AwaitSeen(from, status_is(MemberStatus::kUp)));

  from = recorder.calls();
  ASSERT_OK(other->SetStatus(address, 1, MemberStatus::kLeaving));
  EXPECT_TRUE(recorder.AwaitSeen(from, status_is(MemberStatus::kLeaving)));

  from = recorder.calls();
  ASSERT_OK(other->Remove(address, 1));
  EXPECT_TRUE(recorder.AwaitSeen(from, gone));

  ASSERT_OK(members_->Join(Member(address, 2), kTtl));
  ASSERT_TRUE(recorder.AwaitSeen(from, status_is(MemberStatus::kUp)));
  Expire(address);  // by hand: not announced
  from = recorder.calls();
  ASSERT_EQ(Removed(other->RemoveIfExpired(address, 2)), true);
  EXPECT_TRUE(recorder.AwaitSeen(from, gone));
  EXPECT_FALSE(recorder.overlapped());
}

// Each member renews every few seconds: a renewal must not wake every
// watcher. The first call after a renewal and a join is the join's (it
// sees the join): were the renewal announced, its call would come first,
// read before the join was made, in most rounds. This cannot fail
// spuriously: without an announcement of the renewal, the next call can
// only be the join's, made after it committed.
TEST_F(PostgresMembersTest, ARenewalIsNotAnnounced) {
  Recorder recorder(*members_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> watch,
                       members_->Watch(recorder.Callback()));
  std::unique_ptr<PostgresMembers> other = Open();
  ASSERT_NE(other, nullptr);
  const std::string renewing = "akka://c@h:1";
  const std::string joining = "akka://c@h:2";
  int from = recorder.calls();
  ASSERT_OK(other->Join(Member(renewing, 1), kTtl));
  ASSERT_TRUE(recorder.AwaitSeen(from, [&](const MemberSnapshot& snapshot) {
    return Row(snapshot, renewing).has_value();
  }));
  for (int64_t round = 1; round <= 5; ++round) {
    from = recorder.calls();
    ASSERT_OK(other->Renew(renewing, 1, kTtl));
    ASSERT_OK(other->Join(Member(joining, round), kTtl));
    std::optional<MemberSnapshot> first = recorder.Await(from);
    ASSERT_TRUE(first.has_value()) << "round " << round;
    std::optional<MemberRecord> joined = Row(*first, joining);
    ASSERT_TRUE(joined.has_value()) << "round " << round;
    EXPECT_EQ(joined->uid, round);
  }
}

TEST_F(PostgresMembersTest, ADestroyedWatchCallsNoMore) {
  Recorder gone(*members_), witness(*members_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> watch,
                       members_->Watch(gone.Callback()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> other,
                       members_->Watch(witness.Callback()));
  watch.reset();
  ASSERT_OK(members_->Join(Member("akka://c@h:1", 1), kTtl));
  // The other watch heard the join; the destroyed one's thread is gone.
  EXPECT_TRUE(witness.AwaitSeen(0, [](const MemberSnapshot& snapshot) {
    return !snapshot.members.empty();
  }));
  EXPECT_EQ(gone.calls(), 0);
}

// Two applications in one database, a schema each, each with its cluster:
// neither hears the other's changes. The first call after a change in the
// other schema and one in its own is for its own.
TEST_F(PostgresMembersTest, TwoSchemasDoNotHearEachOther) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db2);
  PostgresOptions options2 = options_;
  options2.schema = db2.schema();
  absl::StatusOr<std::unique_ptr<PostgresMembers>> members2 =
      PostgresMembers::Open(options2);
  ASSERT_OK(members2);

  Recorder recorder(*members_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> watch,
                       members_->Watch(recorder.Callback()));
  for (int64_t round = 1; round <= 3; ++round) {
    const int from = recorder.calls();
    ASSERT_OK((*members2)->Join(Member("akka://other@h:1", round), kTtl));
    ASSERT_OK(members_->Join(Member("akka://c@h:1", round), kTtl));
    std::optional<MemberSnapshot> first = recorder.Await(from);
    ASSERT_TRUE(first.has_value()) << "round " << round;
    std::optional<MemberRecord> own = Row(*first, "akka://c@h:1");
    ASSERT_TRUE(own.has_value()) << "round " << round;
    EXPECT_EQ(own->uid, round);
  }
}

TEST_F(PostgresMembersTest, AWatchWhoseConnectionWasCutComesBackAndCalls) {
  Recorder recorder(*members_);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> watch,
                       members_->Watch(recorder.Callback()));
  absl::StatusOr<std::vector<std::vector<std::string>>> terminated =
      db_->Query(absl::StrCat(
          "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
          "WHERE application_name = 'cairn ",
          db_->schema(), " listener'"));
  ASSERT_OK(terminated);
  ASSERT_EQ((*terminated)[0][0], "1");
  // Back, with a call for what it may have missed: nothing was changed.
  ASSERT_TRUE(recorder.Await(0).has_value());
  const int from = recorder.calls();
  ASSERT_OK(members_->Join(Member("akka://c@h:1", 1), kTtl));
  EXPECT_TRUE(recorder.AwaitSeen(from, [](const MemberSnapshot& snapshot) {
    return !snapshot.members.empty();
  }));
}

}  // namespace
}  // namespace cairn::persistence

// The contract's suite (persistence/storage/testing/member_store_spec.h):
// two stores on one schema, each with a pool of its own, as two processes
// would have.
namespace cairn::persistence::testing {
namespace {

// The stores and their schema, dropped after them.
struct PostgresMembersUnderTest {
  TestDatabase db;
  std::unique_ptr<PostgresMembers> store;
  std::unique_ptr<PostgresMembers> other;
};

// Records the skip, or the failure, in the test being set up.
void EndTest(const internal::TestDatabaseOrReason& made) {
  if (made.skip) GTEST_SKIP() << made.reason;
  ADD_FAILURE() << made.reason;
}

std::pair<std::shared_ptr<MemberStore>, std::shared_ptr<MemberStore>>
OpenPostgresMembers() {
  internal::TestDatabaseOrReason made =
      internal::MakeTestDatabaseFromEnvironment();
  if (!made.database.has_value()) {
    EndTest(made);
    return {};
  }
  PostgresOptions options;
  options.connection_string = made.database->url();
  options.schema = made.database->schema();
  absl::StatusOr<std::unique_ptr<PostgresMembers>> store =
      PostgresMembers::Open(options);
  absl::StatusOr<std::unique_ptr<PostgresMembers>> other =
      PostgresMembers::Open(options);
  EXPECT_OK(store);
  EXPECT_OK(other);
  if (!store.ok() || !other.ok()) return {};
  auto held =
      std::make_shared<PostgresMembersUnderTest>(PostgresMembersUnderTest{
          *std::move(made.database), *std::move(store), *std::move(other)});
  return {std::shared_ptr<MemberStore>(held, held->store.get()),
          std::shared_ptr<MemberStore>(held, held->other.get())};
}

INSTANTIATE_TEST_SUITE_P(
    Postgres, MemberStoreSpec,
    ::testing::Values(MemberStoreUnderTest{"Postgres", OpenPostgresMembers}),
    [](const ::testing::TestParamInfo<MemberStoreUnderTest>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace cairn::persistence::testing
