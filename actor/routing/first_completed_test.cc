// Scatter-gather-first-completed and tail-chopping routers, with time on
// the deterministic TestKit's manual clock.
#include "actor/routing/first_completed.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "actor/actor_system.h"
#include "actor/routing/router.h"
#include "actor/routing/router_config.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"

namespace cairn::actor::routing {
namespace {

using testkit::TestKit;
using testkit::TestProbe;

struct Work {
  int n = 0;
};

std::vector<ActorRef> Refs(
    const std::vector<std::unique_ptr<TestProbe>>& probes) {
  std::vector<ActorRef> refs;
  for (const auto& p : probes) refs.push_back(p->Ref());
  return refs;
}

std::vector<std::unique_ptr<TestProbe>> Probes(TestKit& kit, int n) {
  std::vector<std::unique_ptr<TestProbe>> probes;
  for (int i = 0; i < n; ++i) probes.push_back(kit.CreateTestProbe());
  return probes;
}

void ExpectAskTimeout(TestKit& kit) {
  StatusFailure failure = kit.ExpectMsg<StatusFailure>();
  EXPECT_THROW(std::rethrow_exception(failure.cause), AskTimeoutException);
}

TEST(ScatterGatherTest, FirstReplyGoesToTheSenderLaterOnesAreDropped) {
  TestKit kit(TestKit::Deterministic{});
  auto probes = Probes(kit, 2);
  ActorRef router = kit.Sys().ActorOf(
      Group(Refs(probes), [] {
        return std::make_shared<ScatterGatherFirstCompletedRoutingLogic>(
            absl::Seconds(3));
      }).Props());
  router.Tell(Work{1});
  EXPECT_EQ(probes[0]->ExpectMsg<Work>().n, 1);
  EXPECT_EQ(probes[1]->ExpectMsg<Work>().n, 1);
  probes[1]->Reply(std::string("second probe"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "second probe");
  EXPECT_EQ(kit.LastSender(), probes[1]->Ref());
  probes[0]->Reply(std::string("first probe"));
  kit.ExpectNoMsg();
  kit.TestClock().Advance(absl::Seconds(3));
  kit.ExpectNoMsg();  // answered: no timeout failure
}

TEST(ScatterGatherTest, NoReplyWithinTimeoutFailsTheSender) {
  TestKit kit(TestKit::Deterministic{});
  auto probes = Probes(kit, 2);
  ActorRef router = kit.Sys().ActorOf(
      Group(Refs(probes), [] {
        return std::make_shared<ScatterGatherFirstCompletedRoutingLogic>(
            absl::Seconds(3));
      }).Props());
  router.Tell(Work{1});
  kit.DispatchAll();  // the timer starts when the router has the message
  kit.TestClock().Advance(absl::Seconds(2));
  kit.ExpectNoMsg();
  kit.TestClock().Advance(absl::Seconds(1));
  ExpectAskTimeout(kit);
  probes[0]->Reply(std::string("late"));
  kit.ExpectNoMsg();
}

// Akka: "Timeout due to no routees", at once, not after `within`.
TEST(ScatterGatherTest, NoRouteesFailsTheSenderAtOnce) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(ScatterGatherFirstCompletedGroup(
                            std::vector<std::string>{}, absl::Seconds(3))
                            .Props());
  router.Tell(Work{1});
  ExpectAskTimeout(kit);  // the clock has not moved
  EXPECT_EQ(kit.LastSender(), router);
}

TEST(TailChoppingTest, NoRouteesFailsTheSenderAtOnce) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router = kit.Sys().ActorOf(
      TailChoppingGroup(std::vector<std::string>{}, absl::Seconds(3),
                        absl::Milliseconds(10))
          .Props());
  router.Tell(Work{1});
  ExpectAskTimeout(kit);
}

TEST(TailChoppingTest, OneMoreRouteeEveryIntervalUntilAReply) {
  TestKit kit(TestKit::Deterministic{});
  auto probes = Probes(kit, 3);
  const absl::Duration interval = absl::Milliseconds(100);
  ActorRef router =
      kit.Sys().ActorOf(Group(Refs(probes), [interval] {
                          return std::make_shared<TailChoppingRoutingLogic>(
                              absl::Seconds(1), interval, /*seed=*/9);
                        }).Props());
  // The same seed gives the router's order.
  std::vector<Routee> routees;
  for (const ActorRef& r : Refs(probes)) routees.emplace_back(r);
  std::vector<size_t> order =
      TailChoppingRoutingLogic(absl::Seconds(1), interval, 9)
          .Select(AnyMessage::Of(Work{}), routees);
  ASSERT_EQ(order.size(), 3u);

  router.Tell(Work{4});
  EXPECT_EQ(probes[order[0]]->ExpectMsg<Work>().n, 4);
  probes[order[1]]->ExpectNoMsg();
  probes[order[2]]->ExpectNoMsg();
  kit.TestClock().Advance(interval);
  EXPECT_EQ(probes[order[1]]->ExpectMsg<Work>().n, 4);
  probes[order[2]]->ExpectNoMsg();
  probes[order[1]]->Reply(std::string("done"));
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "done");
  kit.TestClock().Advance(interval * 10);
  probes[order[2]]->ExpectNoMsg();  // answered: no more sends
  kit.ExpectNoMsg();
}

TEST(TailChoppingTest, AllTriedAndNoReplyWithinFailsTheSender) {
  TestKit kit(TestKit::Deterministic{});
  auto probes = Probes(kit, 2);
  ActorRef router =
      kit.Sys().ActorOf(Group(Refs(probes), [] {
                          return std::make_shared<TailChoppingRoutingLogic>(
                              absl::Milliseconds(500), absl::Milliseconds(100));
                        }).Props());
  router.Tell(Work{1});
  kit.DispatchAll();
  kit.TestClock().Advance(absl::Milliseconds(100));
  probes[0]->ExpectMsg<Work>();
  probes[1]->ExpectMsg<Work>();
  kit.ExpectNoMsg();
  kit.TestClock().Advance(absl::Milliseconds(400));
  ExpectAskTimeout(kit);
}

TEST(FirstCompletedTest, RouterOutsideAnActorCannotUseThem) {
  TestKit kit(TestKit::Deterministic{});
  auto probe = kit.CreateTestProbe();
  Router router(std::make_shared<ScatterGatherFirstCompletedRoutingLogic>(
                    absl::Seconds(1)),
                {Routee(probe->Ref())});
  EXPECT_THROW(router.Route(AnyMessage::Of(1), ActorRef()), std::logic_error);
}

TEST(FirstCompletedTest, FromConfigKeys) {
  hocon::Config config = hocon::Config::ParseString(R"(
    akka.actor.deployment {
      "/sg" { router = scatter-gather-pool, nr-of-instances = 2, within = 2s }
      "/tc" {
        router = tail-chopping-group
        routees.paths = ["/user/a"]
        tail-chopping-router.interval = 0s
      }
      "/bad" { router = scatter-gather-group, routees.paths = ["/user/a"], within = soon }
    })")
                             .value();
  EXPECT_OK(RouterSpecFromConfig(config, "/sg", true));
  absl::StatusOr<RouterSpec> tc = RouterSpecFromConfig(config, "/tc", false);
  ASSERT_FALSE(tc.ok());
  EXPECT_NE(tc.status().message().find("tail-chopping-router.interval"),
            std::string::npos);
  absl::StatusOr<RouterSpec> bad = RouterSpecFromConfig(config, "/bad", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"/bad\".within"), std::string::npos);
}

TEST(FirstCompletedTest, ScatterGatherPoolRepliesFromAWorker) {
  TestKit kit(TestKit::Deterministic{});
  class Echo final : public Actor {
   public:
    Echo() {
      Receive<Work>([this](const Work& w) { Sender().Tell(w.n * 2); });
    }
  };
  ActorRef router =
      kit.Sys().ActorOf(ScatterGatherFirstCompletedPool(3, absl::Seconds(1))
                            .Props(Props::Create<Echo>()));
  router.Tell(Work{21});
  EXPECT_EQ(kit.ExpectMsg<int>(), 42);
  kit.ExpectNoMsg();
}

}  // namespace
}  // namespace cairn::actor::routing
