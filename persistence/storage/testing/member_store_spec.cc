#include "persistence/storage/testing/member_store_spec.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/mutex.h"
#include "base/status_testing.h"

namespace cairn::persistence::testing {
namespace {

constexpr absl::Duration kLong = absl::Seconds(60);
constexpr absl::Duration kShort = absl::Milliseconds(200);
constexpr absl::Duration kDeadline = absl::Seconds(20);

// Counts a watch's calls; waits for them with a deadline.
class Calls {
 public:
  std::function<void()> Callback() {
    return [this] {
      base::MutexLock lock(&mu_);
      ++count_;
      cv_.SignalAll();
    };
  }
  // Whether there were at least `n` by the deadline.
  bool AwaitAtLeast(int n) {
    const absl::Time deadline = absl::Now() + kDeadline;
    base::MutexLock lock(&mu_);
    while (count_ < n) {
      if (cv_.WaitWithDeadline(&mu_, deadline)) return count_ >= n;
    }
    return true;
  }
  int count() {
    base::MutexLock lock(&mu_);
    return count_;
  }

 private:
  base::Mutex mu_;
  base::CondVar cv_;
  int count_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace

void MemberStoreSpec::SetUp() {
  std::tie(store_, other_) = GetParam().open();
  if (store_ == nullptr || other_ == nullptr) {
    if (!IsSkipped()) FAIL() << "no store to test";
  }
}

MemberRecord MemberStoreSpec::Member(int port, int64_t uid) {
  MemberRecord m;
  m.address = absl::StrCat("akka://s@127.0.0.1:", port);
  m.uid = uid;
  m.roles = {"a", "b"};
  return m;
}

MemberSnapshot MemberStoreSpec::ReadAll(MemberStore* store) {
  absl::StatusOr<MemberSnapshot> read =
      (store == nullptr ? store_.get() : store)->Read();
  EXPECT_OK(read);
  return read.ok() ? *std::move(read) : MemberSnapshot{};
}

bool MemberStoreSpec::AwaitExpired(const std::string& address) {
  const absl::Time deadline = absl::Now() + kDeadline;
  while (absl::Now() < deadline) {
    MemberSnapshot snapshot = ReadAll();
    for (const MemberRecord& m : snapshot.members) {
      if (m.address == address && m.expires <= snapshot.now) return true;
    }
    absl::SleepFor(absl::Milliseconds(20));  // polling a store, not timing
  }
  return false;
}

TEST_P(MemberStoreSpec, AJoinedMemberIsReadUpWithItsRolesAndExpiry) {
  ASSERT_OK(store_->Join(Member(1, 11), kLong));
  MemberSnapshot snapshot = ReadAll();
  ASSERT_EQ(snapshot.members.size(), 1u);
  const MemberRecord& m = snapshot.members[0];
  EXPECT_EQ(m.address, "akka://s@127.0.0.1:1");
  EXPECT_EQ(m.uid, 11);
  EXPECT_EQ(m.roles, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.status, MemberStatus::kUp);
  EXPECT_GT(m.expires, snapshot.now);
  EXPECT_LE(m.expires, snapshot.now + kLong);
}

TEST_P(MemberStoreSpec, MembersAreReadByAddressByEveryHandle) {
  ASSERT_OK(store_->Join(Member(3, 13), kLong));
  ASSERT_OK(other_->Join(Member(1, 11), kLong));
  ASSERT_OK(store_->Join(Member(2, 12), kLong));
  for (MemberStore* s : {store_.get(), other_.get()}) {
    MemberSnapshot snapshot = ReadAll(s);
    ASSERT_EQ(snapshot.members.size(), 3u);
    EXPECT_EQ(snapshot.members[0].uid, 11);
    EXPECT_EQ(snapshot.members[1].uid, 12);
    EXPECT_EQ(snapshot.members[2].uid, 13);
  }
}

TEST_P(MemberStoreSpec, AnotherIncarnationAtTheAddressReplacesTheRow) {
  ASSERT_OK(store_->Join(Member(1, 11), kLong));
  ASSERT_OK(
      store_->SetStatus(Member(1, 11).address, 11, MemberStatus::kLeaving));
  MemberRecord again = Member(1, 21);
  again.roles = {"c"};
  ASSERT_OK(other_->Join(again, kLong));
  MemberSnapshot snapshot = ReadAll();
  ASSERT_EQ(snapshot.members.size(), 1u);
  EXPECT_EQ(snapshot.members[0].uid, 21);
  EXPECT_EQ(snapshot.members[0].roles, std::vector<std::string>{"c"});
  EXPECT_EQ(snapshot.members[0].status, MemberStatus::kUp);

  // The old incarnation is gone for good: it cannot renew or change the
  // new one's row, and its Remove leaves that row.
  const std::string address = again.address;
  EXPECT_EQ(store_->Renew(address, 11, kLong).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->SetStatus(address, 11, MemberStatus::kExiting).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(store_->Remove(address, 11));
  ASSERT_EQ(ReadAll().members.size(), 1u);
  EXPECT_EQ(ReadAll().members[0].status, MemberStatus::kUp);
}

TEST_P(MemberStoreSpec, RenewMovesTheExpiry) {
  ASSERT_OK(store_->Join(Member(1, 11), kShort));
  ASSERT_OK(store_->Renew(Member(1, 11).address, 11, kLong));
  MemberSnapshot snapshot = ReadAll();
  ASSERT_EQ(snapshot.members.size(), 1u);
  EXPECT_GT(snapshot.members[0].expires, snapshot.now + kLong / 2);
}

TEST_P(MemberStoreSpec, StatusesAreRead) {
  const MemberRecord m = Member(1, 11);
  ASSERT_OK(store_->Join(m, kLong));
  for (MemberStatus status : {MemberStatus::kLeaving, MemberStatus::kExiting}) {
    ASSERT_OK(store_->SetStatus(m.address, m.uid, status));
    ASSERT_EQ(ReadAll(other_.get()).members.size(), 1u);
    EXPECT_EQ(ReadAll(other_.get()).members[0].status, status)
        << MemberStatusName(status);
  }
}

TEST_P(MemberStoreSpec, ARemovedMemberIsGoneForGood) {
  const MemberRecord m = Member(1, 11);
  ASSERT_OK(store_->Join(m, kLong));
  ASSERT_OK(store_->Remove(m.address, m.uid));
  EXPECT_TRUE(ReadAll().members.empty());
  EXPECT_OK(store_->Remove(m.address, m.uid));  // again: nothing to do
  EXPECT_EQ(store_->Renew(m.address, m.uid, kLong).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store_->SetStatus(m.address, m.uid, MemberStatus::kLeaving).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_P(MemberStoreSpec, OnlyARowThatRanOutIsRemovedAsDown) {
  const MemberRecord live = Member(1, 11);
  const MemberRecord dying = Member(2, 12);
  ASSERT_OK(store_->Join(live, kLong));
  ASSERT_OK(store_->Join(dying, kShort));
  ASSERT_OK_AND_ASSIGN(bool removed,
                       other_->RemoveIfExpired(live.address, live.uid));
  EXPECT_FALSE(removed);
  ASSERT_TRUE(AwaitExpired(dying.address));
  // Not another incarnation's row, even run out.
  ASSERT_OK_AND_ASSIGN(removed, other_->RemoveIfExpired(dying.address, 99));
  EXPECT_FALSE(removed);
  ASSERT_OK_AND_ASSIGN(removed,
                       other_->RemoveIfExpired(dying.address, dying.uid));
  EXPECT_TRUE(removed);
  MemberSnapshot snapshot = ReadAll();
  ASSERT_EQ(snapshot.members.size(), 1u);
  EXPECT_EQ(snapshot.members[0].address, live.address);
  ASSERT_OK_AND_ASSIGN(removed,
                       other_->RemoveIfExpired(dying.address, dying.uid));
  EXPECT_FALSE(removed);
  // Its incarnation was removed: it cannot come back by renewing.
  EXPECT_EQ(store_->Renew(dying.address, dying.uid, kLong).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_P(MemberStoreSpec, BadArgumentsAreInvalid) {
  MemberRecord no_address = Member(1, 11);
  no_address.address.clear();
  EXPECT_EQ(store_->Join(no_address, kLong).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Join(Member(1, 0), kLong).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Join(Member(1, 11), absl::ZeroDuration()).code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_OK(store_->Join(Member(1, 11), kLong));
  EXPECT_EQ(store_->Renew(Member(1, 11).address, 11, -absl::Seconds(1)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Renew("", 11, kLong).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Remove(Member(1, 11).address, 0).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadAll().members.size(), 1u);
}

TEST_P(MemberStoreSpec, AWatchHearsEachKindOfChangeFromAnotherHandle) {
  Calls calls;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> watch,
                       store_->Watch(calls.Callback()));
  const MemberRecord m = Member(1, 11);
  const MemberRecord dying = Member(2, 12);
  ASSERT_OK(other_->Join(m, kLong));
  ASSERT_TRUE(calls.AwaitAtLeast(1)) << "Join";
  ASSERT_OK(other_->SetStatus(m.address, m.uid, MemberStatus::kLeaving));
  ASSERT_TRUE(calls.AwaitAtLeast(2)) << "SetStatus";
  ASSERT_OK(other_->Remove(m.address, m.uid));
  ASSERT_TRUE(calls.AwaitAtLeast(3)) << "Remove";
  ASSERT_OK(other_->Join(dying, kShort));
  ASSERT_TRUE(calls.AwaitAtLeast(4)) << "Join";
  ASSERT_TRUE(AwaitExpired(dying.address));
  ASSERT_OK_AND_ASSIGN(bool removed,
                       other_->RemoveIfExpired(dying.address, dying.uid));
  ASSERT_TRUE(removed);
  EXPECT_TRUE(calls.AwaitAtLeast(5)) << "RemoveIfExpired";
}

TEST_P(MemberStoreSpec, AnEndedWatchIsCalledNoMore) {
  Calls ended;
  Calls live;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> watch,
                       store_->Watch(ended.Callback()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<MemberWatch> still,
                       store_->Watch(live.Callback()));
  watch.reset();  // returns once no call is in progress
  const int before = ended.count();
  ASSERT_OK(other_->Join(Member(1, 11), kLong));
  ASSERT_TRUE(live.AwaitAtLeast(1));
  EXPECT_EQ(ended.count(), before);
}

}  // namespace cairn::persistence::testing
