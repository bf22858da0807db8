// Placement of free shards: every member computes the same home from the
// same candidates, in any order; shards spread over the candidates; a
// member joining takes shards only for itself, one leaving gives up only
// its own.
#include "sharding/internal/rendezvous.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace cairn::sharding::internal {
namespace {

std::vector<std::string> Members(int n) {
  std::vector<std::string> members;
  for (int i = 0; i < n; ++i) {
    members.push_back("akka://bank@10.0.0." + std::to_string(i + 1) + ":2552");
  }
  return members;
}

std::map<std::string, std::string> Homes(
    const std::vector<std::string>& members, int shards) {
  std::map<std::string, std::string> homes;
  for (int s = 0; s < shards; ++s) {
    homes[std::to_string(s)] = *RendezvousHome(std::to_string(s), members);
  }
  return homes;
}

TEST(RendezvousTest, NoCandidateNoHome) {
  EXPECT_EQ(RendezvousHome("1", {}), std::nullopt);
}

TEST(RendezvousTest, TheOrderOfTheCandidatesDoesNotMatter) {
  std::vector<std::string> members = Members(5);
  std::vector<std::string> reversed(members.rbegin(), members.rend());
  EXPECT_EQ(Homes(members, 200), Homes(reversed, 200));
}

TEST(RendezvousTest, TheWeightsAreFixedAcrossBuildsAndRuns) {
  // Processes built apart must agree: these are the homes this function
  // has always given (a change here is a change of the protocol).
  std::vector<std::string> members = Members(3);
  EXPECT_EQ(*RendezvousHome("0", members), "akka://bank@10.0.0.3:2552");
  EXPECT_EQ(*RendezvousHome("1", members), "akka://bank@10.0.0.2:2552");
  EXPECT_EQ(*RendezvousHome("5", members), "akka://bank@10.0.0.1:2552");
}

TEST(RendezvousTest, ShardsSpreadOverTheCandidates) {
  std::map<std::string, int> counts;
  for (const auto& [shard, home] : Homes(Members(4), 1000)) ++counts[home];
  ASSERT_EQ(counts.size(), 4u);
  for (const auto& [home, count] : counts) {
    EXPECT_GT(count, 170) << home;  // 250 expected
    EXPECT_LT(count, 330) << home;
  }
}

TEST(RendezvousTest, AJoiningMemberTakesShardsOnlyForItself) {
  std::vector<std::string> three = Members(3);
  std::vector<std::string> four = Members(4);
  std::map<std::string, std::string> before = Homes(three, 500);
  std::map<std::string, std::string> after = Homes(four, 500);
  int moved = 0;
  for (const auto& [shard, home] : after) {
    if (home == before[shard]) continue;
    EXPECT_EQ(home, four.back()) << shard;
    ++moved;
  }
  EXPECT_GT(moved, 80);  // about 125
  EXPECT_LT(moved, 170);
}

TEST(RendezvousTest, ALeavingMemberGivesUpOnlyItsOwnShards) {
  std::vector<std::string> four = Members(4);
  std::vector<std::string> three(four.begin() + 1, four.end());
  std::map<std::string, std::string> before = Homes(four, 500);
  std::map<std::string, std::string> after = Homes(three, 500);
  for (const auto& [shard, home] : before) {
    if (home != four.front()) {
      EXPECT_EQ(after[shard], home) << shard;
    }
  }
}

}  // namespace
}  // namespace cairn::sharding::internal
