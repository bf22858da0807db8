// InMemoryLeaseStore: one owner at a time, expiry on its clock, tokens that
// only grow, renewal and release.
#include "persistence/inmem/in_memory_lease_store.h"

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::persistence {
namespace {

using ::testing::HasSubstr;

class InMemoryLeaseStoreTest : public ::testing::Test {
 protected:
  absl::Time now_ = absl::UnixEpoch();
  InMemoryLeaseStore leases_{[this] { return now_; }};
};

TEST_F(InMemoryLeaseStoreTest, OneOwnerAtATimeUntilTheHoldingExpires) {
  absl::StatusOr<WriteFence> a = leases_.Acquire("s-1", "a", absl::Seconds(10));
  ASSERT_OK(a);
  EXPECT_EQ(a->lease, "s-1");
  EXPECT_EQ(a->owner, "a");
  absl::StatusOr<WriteFence> b = leases_.Acquire("s-1", "b", absl::Seconds(10));
  EXPECT_EQ(b.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(b.status().message(), HasSubstr("held by 'a'"));
  EXPECT_OK(leases_.Acquire("s-2", "b", absl::Seconds(10)));

  now_ += absl::Seconds(10);  // a's holding ran out
  b = leases_.Acquire("s-1", "b", absl::Seconds(10));
  ASSERT_OK(b);
  EXPECT_GT(b->token, a->token);
  absl::Status renewed = leases_.Renew(*a, absl::Seconds(10));
  EXPECT_EQ(renewed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(renewed.message(), HasSubstr("is lost"));
}

TEST_F(InMemoryLeaseStoreTest, RenewalKeepsTheHolding) {
  absl::StatusOr<WriteFence> a = leases_.Acquire("s", "a", absl::Seconds(10));
  ASSERT_OK(a);
  now_ += absl::Seconds(6);
  ASSERT_OK(leases_.Renew(*a, absl::Seconds(10)));
  now_ += absl::Seconds(6);  // 12 s after the grant, 6 after the renewal
  EXPECT_EQ(leases_.Acquire("s", "b", absl::Seconds(10)).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(leases_.Renew(*a, absl::Seconds(10)));
}

TEST_F(InMemoryLeaseStoreTest, ReleaseFreesTheLeaseAtOnceAndOnlyItsHolding) {
  absl::StatusOr<WriteFence> a = leases_.Acquire("s", "a", absl::Seconds(10));
  ASSERT_OK(a);
  // The same owner again: a new holding; the old one is no longer current.
  absl::StatusOr<WriteFence> again =
      leases_.Acquire("s", "a", absl::Seconds(10));
  ASSERT_OK(again);
  EXPECT_GT(again->token, a->token);
  EXPECT_OK(leases_.Release(*a));  // stale: changes nothing
  EXPECT_FALSE(leases_.Acquire("s", "b", absl::Seconds(10)).ok());
  EXPECT_OK(leases_.Release(*again));
  absl::StatusOr<WriteFence> b = leases_.Acquire("s", "b", absl::Seconds(10));
  ASSERT_OK(b);
  EXPECT_GT(b->token, again->token);
  EXPECT_EQ(leases_.Renew(*again, absl::Seconds(1)).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST_F(InMemoryLeaseStoreTest, ATimeToLiveMustBePositive) {
  EXPECT_EQ(leases_.Acquire("s", "a", absl::ZeroDuration()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(InMemoryLeaseStoreTest, TheHolderIsTheCurrentHoldingOnly) {
  ASSERT_OK_AND_ASSIGN(std::optional<LeaseHolding> none, leases_.Holder("s"));
  EXPECT_FALSE(none.has_value());  // never granted
  ASSERT_OK_AND_ASSIGN(WriteFence a,
                       leases_.Acquire("s", "a", absl::Seconds(10)));
  ASSERT_OK_AND_ASSIGN(std::optional<LeaseHolding> held, leases_.Holder("s"));
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->owner, "a");
  EXPECT_EQ(held->token, a.token);
  EXPECT_EQ(held->expires, now_ + absl::Seconds(10));

  now_ += absl::Seconds(10);  // ran out
  ASSERT_OK_AND_ASSIGN(held, leases_.Holder("s"));
  EXPECT_FALSE(held.has_value());

  ASSERT_OK_AND_ASSIGN(WriteFence b,
                       leases_.Acquire("s", "b", absl::Seconds(10)));
  ASSERT_OK_AND_ASSIGN(held, leases_.Holder("s"));
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->owner, "b");
  ASSERT_OK(leases_.Release(b));
  ASSERT_OK_AND_ASSIGN(held, leases_.Holder("s"));
  EXPECT_FALSE(held.has_value());
}

}  // namespace
}  // namespace cairn::persistence
