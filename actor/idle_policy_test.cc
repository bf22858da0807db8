// How idle pool workers wait for work (`idle-policy` and its overrides in
// a dispatcher's section): what each profile means, the errors a bad value
// gives, and that work reaches an actor under every profile, including
// the one where each idle worker sleeps at once and every message from
// outside the pool needs a wake-up (a lost wake-up hangs until the
// deadline and fails).
#include "actor/internal/idle_policy.h"

#include <atomic>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::actor {
namespace {

using internal::IdlePolicy;
using internal::IdlePolicyFromConfig;
using testkit::TestKit;

constexpr char kPath[] = "akka.actor.my-dispatcher";

absl::StatusOr<IdlePolicy> PolicyOf(const std::string& text, int threads = 4,
                                    int cpus = 4) {
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(text);
  EXPECT_TRUE(config.ok()) << config.status();
  return IdlePolicyFromConfig(*config, kPath, threads, cpus);
}

TEST(IdlePolicyTest, ProfilesTradeWakeUpLatencyForIdleCpu) {
  absl::StatusOr<IdlePolicy> aggressive = PolicyOf("idle-policy = aggressive");
  ASSERT_TRUE(aggressive.ok()) << aggressive.status();
  EXPECT_EQ(aggressive->poll, absl::Microseconds(100));
  EXPECT_EQ(aggressive->yield, absl::Milliseconds(1));
  EXPECT_EQ(aggressive->max_waiters, 4);  // every worker

  absl::StatusOr<IdlePolicy> moderate = PolicyOf("idle-policy = moderate");
  ASSERT_TRUE(moderate.ok()) << moderate.status();
  EXPECT_EQ(moderate->poll, absl::Microseconds(20));
  EXPECT_EQ(moderate->yield, absl::Microseconds(100));
  EXPECT_EQ(moderate->max_waiters, 2);  // half of the workers

  absl::StatusOr<IdlePolicy> relaxed = PolicyOf("idle-policy = relaxed");
  ASSERT_TRUE(relaxed.ok()) << relaxed.status();
  EXPECT_EQ(relaxed->poll, absl::ZeroDuration());
  EXPECT_EQ(relaxed->yield, absl::ZeroDuration());
  EXPECT_EQ(relaxed->max_waiters, 0);  // all sleep at once
}

TEST(IdlePolicyTest, AutoIsModerateButOnlyYieldsOnFewCpus) {
  absl::StatusOr<IdlePolicy> many = PolicyOf("idle-policy = auto", 4, 4);
  ASSERT_TRUE(many.ok()) << many.status();
  EXPECT_EQ(many->poll, absl::Microseconds(20));
  EXPECT_EQ(many->yield, absl::Microseconds(100));
  EXPECT_EQ(many->max_waiters, 2);

  // Polling on one or two CPUs would keep the thread that makes the work
  // (a journal's writer) off them.
  absl::StatusOr<IdlePolicy> two = PolicyOf("idle-policy = auto", 2, 2);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->poll, absl::ZeroDuration());
  EXPECT_EQ(two->yield, absl::Microseconds(100));
  EXPECT_EQ(two->max_waiters, 1);
  absl::StatusOr<IdlePolicy> one = PolicyOf("idle-policy = auto", 1, 1);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->poll, absl::ZeroDuration());
  EXPECT_EQ(one->yield, absl::Microseconds(100));
  EXPECT_EQ(one->max_waiters, 1);

  // Unset means auto.
  absl::StatusOr<IdlePolicy> unset = PolicyOf("", 1, 1);
  ASSERT_TRUE(unset.ok()) << unset.status();
  EXPECT_EQ(unset->poll, one->poll);
  EXPECT_EQ(unset->yield, one->yield);
}

TEST(IdlePolicyTest, TimesOverrideTheProfile) {
  absl::StatusOr<IdlePolicy> policy = PolicyOf(
      "idle-policy = moderate, idle-poll-time = 5us, idle-yield-time = 0");
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy->poll, absl::Microseconds(5));
  EXPECT_EQ(policy->yield, absl::ZeroDuration());
  EXPECT_EQ(policy->max_waiters, 2);

  // A relaxed pool given a time to wait lets one worker wait it.
  absl::StatusOr<IdlePolicy> relaxed =
      PolicyOf("idle-policy = relaxed, idle-yield-time = 10us");
  ASSERT_TRUE(relaxed.ok()) << relaxed.status();
  EXPECT_EQ(relaxed->yield, absl::Microseconds(10));
  EXPECT_EQ(relaxed->max_waiters, 1);
}

// The system does not start with a bad value, and says which key is wrong.
TEST(IdlePolicyTest, ABadValueFailsTheSystemsStartNamingTheKey) {
  struct Case {
    std::string setting;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"idle-policy = eager",
       "akka.actor.default-dispatcher.idle-policy: unknown policy 'eager'"},
      {"idle-poll-time = -1us",
       "akka.actor.default-dispatcher.idle-poll-time: must not be negative"},
      {"idle-yield-time = soon",
       "akka.actor.default-dispatcher.idle-yield-time: "},
  };
  for (const Case& c : cases) {
    absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
        absl::StrCat("akka.actor.default-dispatcher { ", c.setting, " }"));
    ASSERT_TRUE(config.ok()) << config.status();
    absl::StatusOr<std::unique_ptr<ActorSystem>> system =
        ActorSystem::Create("idle", *config);
    ASSERT_FALSE(system.ok()) << c.setting;
    EXPECT_EQ(system.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(system.status().message().find(c.expected), std::string::npos)
        << system.status();
  }
}

// Answers each request; passes a relay count on to its partner until it
// reaches zero, then tells the test.
struct Relay {
  int left = 0;
  ActorRef done_to;
};
class Echo final : public Actor {
 public:
  Echo() {
    Receive<int>([this](int n) { Sender().Tell(n); });
    Receive<ActorRef>([this](const ActorRef& partner) { partner_ = partner; });
    Receive<Relay>([this](const Relay& relay) {
      if (relay.left == 0) {
        relay.done_to.Tell(std::string("relayed"));
      } else {
        partner_.Tell(Relay{relay.left - 1, relay.done_to});
      }
    });
  }

 private:
  ActorRef partner_;
};

class IdlePolicyWorkTest : public ::testing::TestWithParam<std::string> {};

// Requests from outside the pool, one at a time (so the pool goes idle
// between them and each may need a wake-up), and relays between actors
// that the two workers share, all arrive.
TEST_P(IdlePolicyWorkTest, EveryMessageIsProcessed) {
  TestKit kit(absl::StrCat(R"(
    akka.actor.default-dispatcher {
      fork-join-executor { parallelism-min = 2, parallelism-max = 2 }
    )",
                           GetParam(), "\n}"));
  ActorRef echo = kit.Sys().ActorOf(Props::Create<Echo>());
  for (int i = 0; i < 200; ++i) {
    echo.Tell(i, kit.TestActor());
    ASSERT_EQ(kit.ExpectMsg<int>(), i);
  }
  std::vector<ActorRef> pairs;
  for (int i = 0; i < 8; ++i) {
    ActorRef a = kit.Sys().ActorOf(Props::Create<Echo>());
    ActorRef b = kit.Sys().ActorOf(Props::Create<Echo>());
    a.Tell(b);
    b.Tell(a);
    pairs.push_back(a);
  }
  for (const ActorRef& a : pairs) a.Tell(Relay{1000, kit.TestActor()});
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(kit.ExpectMsg<std::string>(), "relayed");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, IdlePolicyWorkTest,
    ::testing::Values("idle-policy = aggressive", "idle-policy = moderate",
                      "idle-policy = relaxed", "idle-policy = auto",
                      "idle-policy = relaxed, idle-poll-time = 1us",
                      "idle-policy = relaxed, idle-yield-time = 1us"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name;
      for (char c : info.param) {
        if (std::isalnum(static_cast<unsigned char>(c))) name += c;
      }
      return name;
    });

}  // namespace
}  // namespace cairn::actor
