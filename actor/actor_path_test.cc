#include "actor/actor_path.h"

#include "actor/actor_selection.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

TEST(ActorPathTest, FormatsLikeAkka) {
  ActorPath p("sys", {"user", "a", "b"}, 42);
  EXPECT_EQ(p.ToString(), "akka://sys/user/a/b");
  EXPECT_EQ(p.ToStringWithUid(), "akka://sys/user/a/b#42");
  EXPECT_EQ(p.name(), "b");
  EXPECT_EQ(p.Child("c").ToString(), "akka://sys/user/a/b/c");
}

TEST(ActorPathTest, ParsesAndIgnoresUidInEquality) {
  absl::StatusOr<ActorPath> p = ActorPath::Parse("akka://sys/user/a#7");
  ASSERT_OK(p);
  EXPECT_EQ(p->uid(), 7);
  EXPECT_EQ(p->system(), "sys");
  EXPECT_EQ(*p, ActorPath("sys", {"user", "a"}, 99));
}

TEST(ActorPathTest, ParseErrorsSayWhatIsWrong) {
  EXPECT_NE(ActorPath::Parse("/user/a").status().message().find("akka://"),
            std::string::npos);
  EXPECT_NE(ActorPath::Parse("akka://s/a#x").status().message().find("uid"),
            std::string::npos);
}

TEST(ActorPathTest, ValidatesNames) {
  EXPECT_OK(ActorPath::ValidateName("worker-1_a.b"));
  EXPECT_FALSE(ActorPath::ValidateName("").ok());
  absl::Status dollar = ActorPath::ValidateName("$a");
  EXPECT_NE(dollar.message().find("reserved"), std::string::npos);
  absl::Status slash = ActorPath::ValidateName("a/b");
  EXPECT_NE(slash.message().find("'/' at position 1"), std::string::npos)
      << slash;
  EXPECT_FALSE(ActorPath::ValidateName("a b").ok());
}

TEST(WildcardMatchTest, StarAndQuestionMark) {
  EXPECT_TRUE(WildcardMatch("*", "anything"));
  EXPECT_TRUE(WildcardMatch("worker-*", "worker-12"));
  EXPECT_FALSE(WildcardMatch("worker-*", "manager-1"));
  EXPECT_TRUE(WildcardMatch("w?rker", "worker"));
  EXPECT_FALSE(WildcardMatch("w?rker", "wrker"));
  EXPECT_TRUE(WildcardMatch("a*b*c", "axxbyyc"));
  EXPECT_FALSE(WildcardMatch("a*b*c", "axxbyy"));
  EXPECT_TRUE(WildcardMatch("exact", "exact"));
}

}  // namespace
}  // namespace cairn::actor
