#include "persistence/internal/recovery_permitter.h"

#include <vector>

#include "gtest/gtest.h"

namespace cairn::persistence::internal {
namespace {

TEST(RecoveryPermitterTest, GrantsUpToTheLimitThenInArrivalOrder) {
  RecoveryPermitter permitter(2);
  std::vector<int> granted;
  for (int i = 1; i <= 4; ++i) {
    permitter.Request(i, [&granted, i] { granted.push_back(i); });
  }
  EXPECT_EQ(granted, (std::vector<int>{1, 2}));
  EXPECT_EQ(permitter.waiting(), 2);
  permitter.Return(1);
  EXPECT_EQ(granted, (std::vector<int>{1, 2, 3}));
  permitter.Return(2);
  permitter.Return(3);
  EXPECT_EQ(granted, (std::vector<int>{1, 2, 3, 4}));
  permitter.Return(4);
  EXPECT_EQ(permitter.free_permits(), 2);
}

TEST(RecoveryPermitterTest, AWithdrawnRequestIsNeverGranted) {
  RecoveryPermitter permitter(1);
  std::vector<int> granted;
  permitter.Request(1, [&] { granted.push_back(1); });
  permitter.Request(2, [&] { granted.push_back(2); });
  permitter.Request(3, [&] { granted.push_back(3); });
  permitter.Return(2);  // stopped while waiting
  permitter.Return(1);
  EXPECT_EQ(granted, (std::vector<int>{1, 3}));
  permitter.Return(3);
  permitter.Return(3);  // twice: nothing
  EXPECT_EQ(permitter.free_permits(), 1);
}

TEST(RecoveryPermitterTest, NewRequestsQueueBehindWaitingOnes) {
  RecoveryPermitter permitter(1);
  std::vector<int> granted;
  permitter.Request(1, [&] { granted.push_back(1); });
  permitter.Request(2, [&] { granted.push_back(2); });
  permitter.Return(1);
  permitter.Request(3, [&] { granted.push_back(3); });
  EXPECT_EQ(granted, (std::vector<int>{1, 2}));
}

// TryAcquire takes a free permit at once, never one a waiting request is
// owed, and its permit is given back like a granted one.
TEST(RecoveryPermitterTest, TryAcquireTakesOnlyAFreePermitNobodyWaitsFor) {
  RecoveryPermitter permitter(2);
  std::vector<int> granted;
  EXPECT_TRUE(permitter.TryAcquire(1));
  EXPECT_TRUE(permitter.TryAcquire(2));
  EXPECT_FALSE(permitter.TryAcquire(3));
  permitter.Request(3, [&] { granted.push_back(3); });
  permitter.Request(4, [&] { granted.push_back(4); });
  permitter.Return(1);
  EXPECT_EQ(granted, (std::vector<int>{3}));
  EXPECT_FALSE(permitter.TryAcquire(5));  // 4 waits: it goes first
  permitter.Return(2);
  EXPECT_EQ(granted, (std::vector<int>{3, 4}));
  permitter.Return(3);
  permitter.Return(4);
  EXPECT_EQ(permitter.free_permits(), 2);
  EXPECT_TRUE(permitter.TryAcquire(5));
}

}  // namespace
}  // namespace cairn::persistence::internal
