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

TEST(ActorPathTest, APathOfAReachableSystemCarriesHostAndPort) {
  absl::StatusOr<ActorPath> p =
      ActorPath::Parse("akka://bank@10.0.0.7:25520/user/accounts#12");
  ASSERT_OK(p);
  EXPECT_EQ(p->address(), Address("bank", "10.0.0.7", 25520));
  EXPECT_EQ(p->system(), "bank");
  EXPECT_EQ(p->elements(), (std::vector<std::string>{"user", "accounts"}));
  EXPECT_EQ(p->uid(), 12);
  EXPECT_EQ(p->ToStringWithUid(),
            "akka://bank@10.0.0.7:25520/user/accounts#12");
  // The same names in another process are another actor.
  EXPECT_NE(*p, ActorPath("bank", {"user", "accounts"}));
  EXPECT_NE(
      *p, ActorPath(Address("bank", "10.0.0.7", 25521), {"user", "accounts"}));
}

TEST(AddressTest, ReadsWhatItWrites) {
  for (const char* text :
       {"akka://sys", "akka://sys@localhost:1", "akka://sys@127.0.0.1:65535",
        "akka://sys@[::1]:25520", "akka://my-sys_2@host.example.com:80"}) {
    absl::StatusOr<Address> a = Address::Parse(text);
    ASSERT_OK(a) << text;
    EXPECT_EQ(a->ToString(), text);
  }
  absl::StatusOr<Address> v6 = Address::Parse("akka://s@[fe80::1]:2552");
  ASSERT_OK(v6);
  EXPECT_EQ(v6->host(), "fe80::1");
  EXPECT_EQ(v6->port(), 2552);
  EXPECT_TRUE(v6->HasGlobalScope());
  EXPECT_FALSE(Address("s").HasGlobalScope());
}

TEST(AddressTest, ParseErrorsSayWhatIsWrong) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"http://s@h:1", "akka://"},
           {"akka://", "no actor system"},
           {"akka://@h:1", "no actor system"},
           {"akka://s@h", "':port'"},
           {"akka://s@:1", "empty host"},
           {"akka://s@h:0", "1 to 65535"},
           {"akka://s@h:65536", "1 to 65535"},
           {"akka://s@h:x", "1 to 65535"},
           {"akka://s@[::1:1", "']'"},
           {"akka://s@h:1/user", "after the address"},
       }) {
    absl::StatusOr<Address> a = Address::Parse(c.text);
    ASSERT_FALSE(a.ok()) << c.text;
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(a.status().message().find(c.says), std::string::npos)
        << c.text << ": " << a.status();
  }
  EXPECT_FALSE(ActorPath::Parse("akka://s@h:99999/user/a").ok());
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
