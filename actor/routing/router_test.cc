// Router actors of pools and groups, from code and from
// akka.actor.deployment, in the TestKit's deterministic mode.
#include "actor/routing/router.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/routing/router_config.h"
#include "actor/testkit/event_filter.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::actor::routing {
namespace {

using testkit::EventFilter;
using testkit::TestKit;

struct Work {
  int n = 0;
};
struct Done {
  int n;
  ActorRef by;
};
struct Crash {};
struct Count {};

// Replies to the sender with what it did and who did it; counts messages
// (a restart starts the count again).
class Worker final : public Actor {
 public:
  Worker() {
    Receive<Work>([this](const Work& w) {
      ++count_;
      Sender().Tell(Done{w.n, Self()});
    });
    Receive<std::string>(
        [this](const std::string& s) { Sender().Tell(s + " from worker"); });
    Receive<Count>([this](const Count&) { Sender().Tell(count_); });
    Receive<Crash>([](const Crash&) -> void {
      throw std::runtime_error("worker crashed");
    });
  }

 private:
  int count_ = 0;
};

hocon::Config Deployment(std::string_view text) {
  return hocon::Config::ParseString(text).value().WithFallback(
      TestKit::TestConfig());
}

std::vector<ActorRef> RouteesOf(TestKit& kit, const ActorRef& router) {
  router.Tell(GetRoutees{});
  std::vector<ActorRef> refs;
  for (const Routee& r : kit.ExpectMsg<Routees>().routees) {
    refs.push_back(r.ref());
  }
  return refs;
}

TEST(PoolRouterTest, RoundRobinPoolSendsToEachRouteeInTurnKeepingSender) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router = kit.Sys().ActorOf(
      RoundRobinPool(3).Props(Props::Create<Worker>()), "workers");
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  ASSERT_EQ(routees.size(), 3u);
  for (int i = 0; i < 6; ++i) router.Tell(Work{i});
  for (int i = 0; i < 6; ++i) {
    // The reply reaches the test (the original sender), not the router.
    Done d = kit.ExpectMsg<Done>();
    EXPECT_EQ(d.n, i);
    EXPECT_EQ(d.by, routees[i % 3]) << i;
  }
  // The routees are the router's children.
  EXPECT_EQ(routees[0].Path().ToString(),
            router.Path().Child(routees[0].Path().name()).ToString());
}

TEST(PoolRouterTest, OnThreadsEveryRouteeGetsItsShare) {
  TestKit kit;  // the thread-pool dispatcher, not the deterministic mode
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinPool(4).Props(Props::Create<Worker>()));
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  for (int i = 0; i < 400; ++i) router.Tell(Work{i});
  std::map<ActorRef, int> share;
  for (const AnyMessage& m : kit.ReceiveN(400)) ++share[m.As<Done>()->by];
  ASSERT_EQ(share.size(), 4u);
  for (const ActorRef& r : routees) EXPECT_EQ(share[r], 100);
}

TEST(PoolRouterTest, BroadcastEnvelopeGoesToEveryRoutee) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinPool(3).Props(Props::Create<Worker>()));
  router.Tell(Broadcast{AnyMessage::Of(std::string("hi"))});
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(kit.ExpectMsg<std::string>(), "hi from worker");
  }
  kit.ExpectNoMsg();
}

TEST(PoolRouterTest, BroadcastPoolSendsEveryMessageToAll) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(BroadcastPool(4).Props(Props::Create<Worker>()));
  router.Tell(Work{7});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(kit.ExpectMsg<Done>().n, 7);
  kit.ExpectNoMsg();
}

TEST(PoolRouterTest, RandomPoolWithSeedReachesRouteesOnly) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router = kit.Sys().ActorOf(
      RandomPool(3, /*seed=*/42).Props(Props::Create<Worker>()));
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  std::vector<int> hits(3, 0);
  for (int i = 0; i < 60; ++i) router.Tell(Work{i});
  for (int i = 0; i < 60; ++i) {
    Done d = kit.ExpectMsg<Done>();
    auto it = std::find(routees.begin(), routees.end(), d.by);
    ASSERT_NE(it, routees.end());
    ++hits[it - routees.begin()];
  }
  // With this seed every routee is drawn (60 draws of 3).
  for (int h : hits) EXPECT_GT(h, 0);
}

struct Order : ConsistentHashable {
  explicit Order(std::string c) : customer(std::move(c)) {}
  HashKey ConsistentHashKey() const override { return customer; }
  std::string customer;
};

TEST(PoolRouterTest, ConsistentHashingPoolKeepsAKeyOnOneRoutee) {
  TestKit kit(TestKit::Deterministic{});
  class Keeper final : public Actor {
   public:
    Keeper() {
      Receive<Order>([this](const Order&) { Sender().Tell(Self()); });
      Receive<Work>([this](const Work&) { Sender().Tell(Self()); });
    }
  };
  ActorRef router = kit.Sys().ActorOf(
      ConsistentHashingPool(5).Props(Props::Create<Keeper>()));
  router.Tell(Order("alice"));
  ActorRef alice = kit.ExpectMsg<ActorRef>();
  for (int i = 0; i < 5; ++i) {
    router.Tell(Order("alice"));
    EXPECT_EQ(kit.ExpectMsg<ActorRef>(), alice);
    // The envelope's key routes the unwrapped message the same way.
    router.Tell(ConsistentHashableEnvelope{AnyMessage::Of(Work{i}), "alice"});
    EXPECT_EQ(kit.ExpectMsg<ActorRef>(), alice);
  }
  // No key: dead letters, not a routee.
  router.Tell(Work{9});
  kit.ExpectNoMsg();
}

TEST(PoolRouterTest, ManagementMessagesChangeTheRoutees) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinPool(2).Props(Props::Create<Worker>()));
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  ASSERT_EQ(routees.size(), 2u);

  // Removing a pool's child stops it.
  kit.Watch(routees[0]);
  router.Tell(RemoveRoutee{Routee(routees[0])});
  kit.ExpectTerminated(routees[0]);
  EXPECT_EQ(RouteesOf(kit, router), std::vector<ActorRef>{routees[1]});

  auto probe = kit.CreateTestProbe("extra");
  router.Tell(AddRoutee{Routee(probe->Ref())});
  router.Tell(AddRoutee{Routee(probe->Ref())});  // once is enough
  EXPECT_EQ(RouteesOf(kit, router),
            (std::vector<ActorRef>{routees[1], probe->Ref()}));
  router.Tell(Work{1});
  router.Tell(Work{2});
  EXPECT_EQ(kit.ExpectMsg<Done>().n, 1);
  EXPECT_EQ(probe->ExpectMsg<Work>().n, 2);
  EXPECT_EQ(probe->LastSender(), kit.TestActor());
}

// Akka's AdjustPoolSize: positive adds routees, negative removes the last.
TEST(PoolRouterTest, AdjustPoolSizeAddsAndRemovesRoutees) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinPool(2).Props(Props::Create<Worker>()));
  std::vector<ActorRef> first = RouteesOf(kit, router);
  router.Tell(AdjustPoolSize{3});
  std::vector<ActorRef> five = RouteesOf(kit, router);
  ASSERT_EQ(five.size(), 5u);
  EXPECT_EQ(std::vector<ActorRef>(five.begin(), five.begin() + 2), first);
  for (int i = 0; i < 5; ++i) router.Tell(Work{i});
  for (int i = 0; i < 5; ++i) EXPECT_EQ(kit.ExpectMsg<Done>().by, five[i]);

  kit.Watch(five[4]);
  kit.Watch(five[1]);
  router.Tell(AdjustPoolSize{-4});
  kit.ExpectTerminated(five[1]);
  kit.ExpectTerminated(five[4]);
  EXPECT_EQ(RouteesOf(kit, router), std::vector<ActorRef>{five[0]});
  router.Tell(AdjustPoolSize{0});
  EXPECT_EQ(RouteesOf(kit, router).size(), 1u);

  // Without a resizer, the pool stops with its last routee.
  kit.Watch(router);
  router.Tell(AdjustPoolSize{-1000});
  kit.ExpectTerminated(router);
}

// Akka allows a pool of no routees when a resizer may grow it.
TEST(PoolRouterTest, PoolOfNoRouteesWithAResizer) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.deployment {
      "/configured" {
        router = round-robin-pool
        nr-of-instances = 0
        resizer { enabled = on, lower-bound = 0, upper-bound = 3 }
      }
    })")});
  ActorRef router = kit.Sys().ActorOf(
      RoundRobinPool(0)
          .WithResizer(DefaultResizer{.lower_bound = 0, .upper_bound = 3})
          .Props(Props::Create<Worker>()),
      "empty");
  EXPECT_TRUE(RouteesOf(kit, router).empty());
  auto dead = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  router.Tell(Work{1});
  EXPECT_EQ(dead->ExpectMsg<DeadLetter>().message.As<Work>()->n, 1);
  router.Tell(AdjustPoolSize{2});
  EXPECT_EQ(RouteesOf(kit, router).size(), 2u);
  router.Tell(Work{2});
  EXPECT_EQ(kit.ExpectMsg<Done>().n, 2);
  // Back to none: it stays, as a resizer may bring routees back.
  router.Tell(AdjustPoolSize{-2});
  EXPECT_TRUE(RouteesOf(kit, router).empty());

  ActorRef configured = kit.Sys().ActorOf(
      FromConfig::Props(Props::Create<Worker>()), "configured");
  EXPECT_TRUE(RouteesOf(kit, configured).empty());
  configured.Tell(AdjustPoolSize{1});
  EXPECT_EQ(RouteesOf(kit, configured).size(), 1u);
  EXPECT_THROW(RoundRobinPool(0).Props(Props::Create<Worker>()),
               std::invalid_argument);  // no resizer: at least one
}

TEST(PoolRouterTest, RouterStopsWhenAllRouteesHaveStopped) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinPool(3).Props(Props::Create<Worker>()));
  kit.Watch(router);
  router.Tell(Broadcast{AnyMessage::Of(PoisonPill{})});
  kit.ExpectTerminated(router);
}

TEST(PoolRouterTest, DefaultStrategyRestartsTheFailedRouteeOnly) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(BroadcastPool(2).Props(Props::Create<Worker>()));
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  router.Tell(Work{1});
  kit.ReceiveN(2);
  routees[0].Tell(Crash{});
  routees[0].Tell(Count{});
  EXPECT_EQ(kit.ExpectMsg<int>(), 0);  // restarted: state lost
  routees[1].Tell(Count{});
  EXPECT_EQ(kit.ExpectMsg<int>(), 1);  // the other one untouched
  EXPECT_EQ(RouteesOf(kit, router), routees);
}

TEST(PoolRouterTest, WithSupervisorStrategyChoosesHowRouteesAreSupervised) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router = kit.Sys().ActorOf(
      RoundRobinPool(2)
          .WithSupervisorStrategy(SupervisorStrategy::StoppingStrategy)
          .Props(Props::Create<Worker>()));
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  kit.Watch(routees[0]);
  routees[0].Tell(Crash{});
  kit.ExpectTerminated(routees[0]);
  EXPECT_EQ(RouteesOf(kit, router), std::vector<ActorRef>{routees[1]});
}

TEST(PoolRouterTest, PoolNeedsOneInstance) {
  EXPECT_THROW(RoundRobinPool(0).Props(Props::Create<Worker>()),
               std::invalid_argument);
}

TEST(PoolRouterTest, SmallestMailboxPoolSendsNothingToABusyRoutee) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router =
      kit.Sys().ActorOf(SmallestMailboxPool(3).Props(Props::Create<Worker>()));
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  ASSERT_EQ(routees.size(), 3u);
  // Queued first, so the router's turn comes before its routees' (the
  // deterministic mode runs mailboxes in the order they became runnable).
  router.Tell(Work{0});
  // Without a sender: their replies go to dead letters, not to the test.
  for (int i = 0; i < 20; ++i) routees[0].Tell(Work{100 + i}, ActorRef());
  routees[1].Tell(Work{200}, ActorRef());
  routees[2].Tell(Work{300}, ActorRef());
  routees[2].Tell(Work{301}, ActorRef());
  // Nobody idle: the fewest queued, routees[1] (1 < 2 < 20).
  ASSERT_TRUE(kit.DispatchOne());
  for (int i = 1; i < 6; ++i) router.Tell(Work{i});
  // routees[0] still holds some of its messages whenever the router routes
  // one of these.
  for (int i = 0; i < 6; ++i) {
    Done d = kit.ExpectMsg<Done>();
    if (d.n == 0) {
      EXPECT_EQ(d.by, routees[1]);
    }
    EXPECT_NE(d.by, routees[0]) << d.n;
  }
  kit.ExpectNoMsg();
}

// On threads the router reads its routees' mailboxes while they run: every
// message still reaches one routee exactly once (and TSan sees the reads).
TEST(PoolRouterTest, SmallestMailboxPoolWithResizerOnThreadsLosesNothing) {
  TestKit kit;  // the thread-pool dispatcher
  ActorRef router = kit.Sys().ActorOf(
      SmallestMailboxPool(2)
          .WithResizer(DefaultResizer{
              .lower_bound = 2, .upper_bound = 6, .messages_per_resize = 5})
          .Props(Props::Create<Worker>()));
  for (int i = 0; i < 400; ++i) router.Tell(Work{i});
  std::vector<int> seen(400, 0);
  for (const AnyMessage& m : kit.ReceiveN(400)) ++seen[m.As<Done>()->n];
  for (int i = 0; i < 400; ++i) EXPECT_EQ(seen[i], 1) << i;
  const size_t size = RouteesOf(kit, router).size();
  EXPECT_GE(size, 2u);
  EXPECT_LE(size, 6u);
}

// Keeps itself busy for `steps` turns per Work (a message to itself per
// turn), as a routee in the middle of long work: its mailbox is scheduled
// and holds a message at every turn of the router until it is done.
struct Step {
  int left;
};
class LongWorker final : public Actor {
 public:
  explicit LongWorker(int steps) {
    Receive<Work>([this, steps](const Work&) { Self().Tell(Step{steps}); });
    Receive<Step>([this](const Step& s) {
      if (s.left > 1) Self().Tell(Step{s.left - 1});
    });
  }
};

TEST(ResizerTest, PoolGrowsUnderPressureToTheUpperBoundAndShrinksWhenIdle) {
  TestKit kit(TestKit::Deterministic{});
  const DefaultResizer resizer{.lower_bound = 2,
                               .upper_bound = 5,
                               .rampup_rate = 0.5,
                               .backoff_threshold = 0.3,
                               .backoff_rate = 0.5,
                               .messages_per_resize = 2};
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinPool(2).WithResizer(resizer).Props(
                            Props::Create<LongWorker>(/*steps=*/40)),
                        "resized");
  std::vector<ActorRef> initial = RouteesOf(kit, router);
  ASSERT_EQ(initial.size(), 2u);

  // Sent at once: the router routes one per turn while its routees work.
  // Before the 4th message both are busy (2 -> 3), before the 8th all
  // three (3 -> 5), before the 12th all five, but 5 is the upper bound.
  for (int i = 0; i < 16; ++i) router.Tell(Work{i});
  std::vector<ActorRef> grown = RouteesOf(kit, router);
  ASSERT_EQ(grown.size(), 5u);
  EXPECT_EQ(std::vector<ActorRef>(grown.begin(), grown.begin() + 2), initial);

  // One at a time, each done before the next: nobody busy at the next
  // resize (the 18th message), so it backs off by ceil(0.5 * 5) = 3 to the
  // lower bound; the routees added last go, after their messages.
  for (const ActorRef& r : grown) kit.Watch(r);
  for (int i = 16; i < 24; ++i) {
    router.Tell(Work{i});
    kit.DispatchAll();
  }
  for (int i = 2; i < 5; ++i) kit.ExpectTerminated(grown[i]);
  EXPECT_EQ(RouteesOf(kit, router), initial);
  kit.ExpectNoMsg();
}

TEST(ResizerTest, NoResizeBetweenResizePoints) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef router = kit.Sys().ActorOf(
      RoundRobinPool(0)
          .WithResizer(DefaultResizer{.lower_bound = 1,
                                      .upper_bound = 4,
                                      .rampup_rate = 1.0,
                                      .messages_per_resize = 100})
          .Props(Props::Create<LongWorker>(/*steps=*/40)));
  // Starts at the lower bound.
  ASSERT_EQ(RouteesOf(kit, router).size(), 1u);
  for (int i = 0; i < 99; ++i) router.Tell(Work{i});
  EXPECT_EQ(RouteesOf(kit, router).size(), 1u);
}

TEST(ResizerTest, InvalidResizerIsRefused) {
  EXPECT_THROW(RoundRobinPool(2).WithResizer(
                   DefaultResizer{.lower_bound = 3, .upper_bound = 2}),
               std::invalid_argument);
  EXPECT_THROW(
      RoundRobinPool(2).WithResizer(DefaultResizer{.messages_per_resize = 0}),
      std::invalid_argument);
  EXPECT_THROW(
      RoundRobinPool(2).WithResizer(DefaultResizer{.backoff_threshold = 1.5}),
      std::invalid_argument);
}

TEST(GroupRouterTest, RoundRobinGroupByPathsDoesNotOwnItsRoutees) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Worker>(), "a");
  ActorRef b = kit.Sys().ActorOf(Props::Create<Worker>(), "b");
  ActorRef router = kit.Sys().ActorOf(
      RoundRobinGroup(std::vector<std::string>{"/user/a", "/user/b"}).Props(),
      "group");
  for (int i = 0; i < 4; ++i) router.Tell(Work{i});
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(kit.ExpectMsg<Done>().by, i % 2 == 0 ? a : b);
  }
  kit.Watch(router);
  kit.Sys().Stop(router);
  kit.ExpectTerminated(router);
  a.Tell(Count{});
  EXPECT_EQ(kit.ExpectMsg<int>(), 2);  // not a child: still alive
}

TEST(GroupRouterTest, GroupByRefsDropsRouteesThatStop) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Worker>(), "a");
  ActorRef b = kit.Sys().ActorOf(Props::Create<Worker>(), "b");
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinGroup(std::vector<ActorRef>{a, b}).Props());
  kit.Sys().Stop(a);
  kit.DispatchAll();
  EXPECT_EQ(RouteesOf(kit, router), std::vector<ActorRef>{b});
  router.Tell(Work{1});
  EXPECT_EQ(kit.ExpectMsg<Done>().by, b);
}

// Every group logic takes refs as well as paths.
TEST(GroupRouterTest, EveryGroupLogicTakesRefs) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Worker>(), "a");
  ActorRef b = kit.Sys().ActorOf(Props::Create<Worker>(), "b");
  const std::vector<ActorRef> refs = {a, b};
  auto reaches = [&](const Group& group, int replies) {
    ActorRef router = kit.Sys().ActorOf(group.Props());
    EXPECT_EQ(RouteesOf(kit, router), refs);
    router.Tell(Work{7});
    for (int i = 0; i < replies; ++i) {
      Done d = kit.ExpectMsg<Done>();
      EXPECT_EQ(d.n, 7);
      EXPECT_TRUE(d.by == a || d.by == b);
    }
    kit.ExpectNoMsg();
  };
  reaches(RandomGroup(refs, /*seed=*/1), 1);
  reaches(BroadcastGroup(refs), 2);
  reaches(
      ConsistentHashingGroup(refs,
                             [](const AnyMessage& m) -> std::optional<HashKey> {
                               if (const Work* w = m.As<Work>()) return w->n;
                               return std::nullopt;
                             }),
      1);
  reaches(ScatterGatherFirstCompletedGroup(refs, absl::Seconds(1)), 1);
  reaches(TailChoppingGroup(refs, absl::Seconds(1), absl::Milliseconds(10)), 1);

  // AdjustPoolSize is for pools: a group leaves it unhandled.
  ActorRef group = kit.Sys().ActorOf(RoundRobinGroup(refs).Props());
  auto unhandled = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<UnhandledMessage>(unhandled->Ref());
  group.Tell(AdjustPoolSize{2});
  EXPECT_NE(
      unhandled->ExpectMsg<UnhandledMessage>().message.As<AdjustPoolSize>(),
      nullptr);
  EXPECT_EQ(RouteesOf(kit, group), refs);
}

TEST(GroupRouterTest, MessageWithoutRouteeGoesToDeadLetters) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Worker>(), "a");
  ActorRef router =
      kit.Sys().ActorOf(RoundRobinGroup(std::vector<ActorRef>{a}).Props());
  kit.Sys().Stop(a);
  kit.DispatchAll();
  auto probe = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(probe->Ref());
  router.Tell(Work{5});
  DeadLetter d = probe->ExpectMsg<DeadLetter>();
  ASSERT_NE(d.message.As<Work>(), nullptr);
  EXPECT_EQ(d.message.As<Work>()->n, 5);
  EXPECT_EQ(d.sender, kit.TestActor());
}

TEST(FromConfigTest, PoolFromDeploymentSection) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.deployment {
      "/workers" { router = round-robin-pool, nr-of-instances = 4 }
    })")});
  ActorRef router =
      kit.Sys().ActorOf(FromConfig::Props(Props::Create<Worker>()), "workers");
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  ASSERT_EQ(routees.size(), 4u);
  for (int i = 0; i < 4; ++i) router.Tell(Work{i});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(kit.ExpectMsg<Done>().by, routees[i]);
}

TEST(FromConfigTest, NestedPathAndGroupFromDeploymentSection) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.deployment {
      "/parent/hub" {
        router = broadcast-group
        routees.paths = ["/user/a", "/user/b"]
      }
    })")});
  kit.Sys().ActorOf(Props::Create<Worker>(), "a");
  kit.Sys().ActorOf(Props::Create<Worker>(), "b");
  class Parent final : public Actor {
   public:
    Parent() {
      Receive<Count>([this](const Count&) {
        Sender().Tell(Context().ActorOf(FromConfig::Props(), "hub"));
      });
    }
  };
  ActorRef parent = kit.Sys().ActorOf(Props::Create<Parent>(), "parent");
  parent.Tell(Count{});
  ActorRef hub = kit.ExpectMsg<ActorRef>();
  hub.Tell(Work{3});
  EXPECT_EQ(kit.ExpectMsg<Done>().n, 3);
  EXPECT_EQ(kit.ExpectMsg<Done>().n, 3);
}

// Akka throws ConfigurationException from actorOf; so does ActorOf here,
// as it does for an unknown dispatcher, instead of a ref that dies later.
TEST(FromConfigTest, MissingSectionFailsActorOfAtOnce) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.deployment {
      "/bad" { router = fastest-pool }
    })")});
  try {
    kit.Sys().ActorOf(FromConfig::Props(Props::Create<Worker>()),
                      "unconfigured");
    ADD_FAILURE() << "no exception";
  } catch (const ConfigurationException& e) {
    EXPECT_NE(std::string(e.what()).find("/unconfigured"), std::string::npos)
        << e.what();
  }
  // A bad section fails a router given in code as well.
  EXPECT_THROW(kit.Sys().ActorOf(
                   RoundRobinPool(2).Props(Props::Create<Worker>()), "bad"),
               ConfigurationException);
  // Inside an actor, the exception reaches the parent's code at once.
  class Parent final : public Actor {
   public:
    Parent() {
      Receive<Count>([this](const Count&) {
        try {
          Context().ActorOf(FromConfig::Props(), "hub");
          Sender().Tell(std::string("created"));
        } catch (const ConfigurationException& e) {
          Sender().Tell(std::string(e.what()));
        }
      });
    }
  };
  ActorRef parent = kit.Sys().ActorOf(Props::Create<Parent>(), "parent");
  parent.Tell(Count{});
  EXPECT_NE(kit.ExpectMsg<std::string>().find("/parent/hub"),
            std::string::npos);
  // The names stay free: nothing was made.
  EXPECT_NO_THROW(kit.Sys().ActorOf(Props::Create<Worker>(), "unconfigured"));
}

TEST(FromConfigTest, SmallestMailboxPoolWithResizer) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.deployment {
      "/workers" {
        router = smallest-mailbox-pool
        resizer { enabled = on, lower-bound = 3, upper-bound = 4 }
      }
      "/fixed" {
        router = smallest-mailbox-pool
        nr-of-instances = 2
        resizer { lower-bound = 3 }  # not enabled: no resizer
      }
    })")});
  ActorRef router =
      kit.Sys().ActorOf(FromConfig::Props(Props::Create<Worker>()), "workers");
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  ASSERT_EQ(routees.size(), 3u);  // the lower bound
  router.Tell(Work{1});
  EXPECT_EQ(kit.ExpectMsg<Done>().by, routees[0]);  // all idle: the first
  ActorRef fixed =
      kit.Sys().ActorOf(FromConfig::Props(Props::Create<Worker>()), "fixed");
  EXPECT_EQ(RouteesOf(kit, fixed).size(), 2u);
}

// Akka: the deployment section wins over the router given in code.
TEST(FromConfigTest, DeploymentOverridesThePoolGivenInCode) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.deployment {
      "/workers" { router = broadcast-pool, nr-of-instances = 3 }
      "/sized" { router = broadcast-pool }
      "/coded" { router = from-code }
      "/plain" { router = broadcast-pool, nr-of-instances = 3 }
    })")});
  ActorRef router = kit.Sys().ActorOf(
      RoundRobinPool(2)
          .WithSupervisorStrategy(SupervisorStrategy::StoppingStrategy)
          .Props(Props::Create<Worker>()),
      "workers");
  std::vector<ActorRef> routees = RouteesOf(kit, router);
  ASSERT_EQ(routees.size(), 3u);
  router.Tell(Work{1});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(kit.ExpectMsg<Done>().n, 1);
  kit.ExpectNoMsg();
  // What the section does not say comes from the code: the strategy...
  kit.Watch(routees[0]);
  routees[0].Tell(Crash{});
  kit.ExpectTerminated(routees[0]);
  // ... and the number of instances.
  ActorRef sized = kit.Sys().ActorOf(
      RoundRobinPool(4).Props(Props::Create<Worker>()), "sized");
  EXPECT_EQ(RouteesOf(kit, sized).size(), 4u);
  sized.Tell(Work{2});
  EXPECT_EQ(kit.ReceiveN(4).size(), 4u);  // broadcast, from the section

  // `from-code` keeps the code's router.
  ActorRef coded = kit.Sys().ActorOf(
      RoundRobinPool(2).Props(Props::Create<Worker>()), "coded");
  EXPECT_EQ(RouteesOf(kit, coded).size(), 2u);
  coded.Tell(Work{3});
  EXPECT_EQ(kit.ExpectMsg<Done>().n, 3);
  kit.ExpectNoMsg();

  // Props without a router stay a plain actor, as in Akka.
  ActorRef plain = kit.Sys().ActorOf(Props::Create<Worker>(), "plain");
  plain.Tell(Work{4});
  EXPECT_EQ(kit.ExpectMsg<Done>().by, plain);
  kit.ExpectNoMsg();
}

// Akka's ConsistentHashingPool.withFallback: a section that makes the
// path a consistent-hashing router keeps the code's hash mapping (and what
// else the section does not say).
TEST(FromConfigTest, DeploymentKeepsTheHashMappingAndResizerOfTheCode) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.deployment {
      "/hashed" { router = consistent-hashing-pool, nr-of-instances = 5 }
      "/grown" { router = round-robin-pool, nr-of-instances = 0 }
    })")});
  HashKeyFunction by_n = [](const AnyMessage& m) -> std::optional<std::string> {
    if (const Work* w = m.As<Work>()) return std::to_string(w->n % 3);
    return std::nullopt;
  };
  ActorRef router = kit.Sys().ActorOf(
      ConsistentHashingPool(2, by_n).Props(Props::Create<Worker>()), "hashed");
  EXPECT_EQ(RouteesOf(kit, router).size(), 5u);  // from the section
  auto probe = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(probe->Ref());
  std::map<int, ActorRef> by_key;
  for (int i = 0; i < 12; ++i) {
    router.Tell(Work{i});
    Done d = kit.ExpectMsg<Done>();
    EXPECT_EQ(d.n, i);
    auto [it, first] = by_key.emplace(i % 3, d.by);
    EXPECT_EQ(it->second, d.by) << i;  // one key, one routee
  }
  probe->ExpectNoMsg();

  // Akka's "use specified resizer when resizer not configured".
  ActorRef grown = kit.Sys().ActorOf(
      RoundRobinPool(0)
          .WithResizer(DefaultResizer{.lower_bound = 2, .upper_bound = 3})
          .Props(Props::Create<Worker>()),
      "grown");
  EXPECT_EQ(RouteesOf(kit, grown).size(), 2u);
}

// akka.actor.debug.router-misconfiguration: Akka's warning for props
// without a router at a path the configuration makes a router.
TEST(FromConfigTest, PlainPropsAtARouterPathWarnWhenAsked) {
  TestKit kit(TestKit::Deterministic{.config = Deployment(R"(
    akka.actor.debug.router-misconfiguration = on
    akka.actor.deployment {
      "/plain" { router = round-robin-pool, nr-of-instances = 2 }
      "/parent/inner" { router = round-robin-pool, nr-of-instances = 2 }
      "/coded" { router = from-code }
    })")});
  ActorRef plain;
  EventFilter::Warning("[/plain] should be a router").ExpectOne(kit.Sys(), [&] {
    plain = kit.Sys().ActorOf(Props::Create<Worker>(), "plain");
  });
  plain.Tell(Work{1});
  EXPECT_EQ(kit.ExpectMsg<Done>().by, plain);  // still a plain actor
  class Parent final : public Actor {
   public:
    Parent() {
      Receive<Count>([this](const Count&) {
        Context().ActorOf(Props::Create<Worker>(), "inner");
      });
    }
  };
  ActorRef parent = kit.Sys().ActorOf(Props::Create<Parent>(), "parent");
  EventFilter::Warning("[/parent/inner] should be a router")
      .ExpectOne(kit.Sys(), [&] { parent.Tell(Count{}); });
  // Routers, from code or config, and paths the config leaves alone: none.
  EventFilter::Warning("should be a router").Expect(kit.Sys(), 0, [&] {
    kit.Sys().ActorOf(RoundRobinPool(2).Props(Props::Create<Worker>()),
                      "inner");
    kit.Sys().ActorOf(Props::Create<Worker>(), "coded");
    kit.Sys().ActorOf(Props::Create<Worker>(), "elsewhere");
  });
}

TEST(FromConfigTest, BadSectionsAreNamedWithTheirKey) {
  hocon::Config config = hocon::Config::ParseString(R"(
    akka.actor.deployment {
      "/a" { router = round-robin-pool }
      "/b" { router = fastest-pool, nr-of-instances = 2 }
      "/c" { router = random-group }
      "/d" { router = broadcast-pool, nr-of-instances = 0 }
      "/e" { router = round-robin-pool, nr-of-instances = 2 }
      "/f" { router = smallest-mailbox-group, routees.paths = ["/user/a"] }
      "/g" {
        router = round-robin-pool
        resizer { enabled = on, lower-bound = 5, upper-bound = 4 }
      }
    })")
                             .value();
  auto error = [&](std::string_view path, bool has_props = true) {
    absl::StatusOr<RouterSpec> spec =
        RouterSpecFromConfig(config, path, has_props);
    EXPECT_FALSE(spec.ok()) << path;
    return std::string(spec.status().message());
  };
  EXPECT_NE(error("/a").find("\"/a\".nr-of-instances"), std::string::npos)
      << error("/a");
  EXPECT_NE(error("/b").find("\"/b\".router"), std::string::npos)
      << error("/b");
  EXPECT_NE(error("/c").find("\"/c\".routees.paths"), std::string::npos)
      << error("/c");
  EXPECT_NE(error("/d").find("at least 1"), std::string::npos) << error("/d");
  EXPECT_NE(error("/e", false).find("routee props"), std::string::npos);
  EXPECT_NE(error("/zzz").find("missing for /zzz"), std::string::npos);
  EXPECT_NE(error("/f").find("pool only"), std::string::npos) << error("/f");
  EXPECT_NE(error("/g").find("\"/g\".resizer"), std::string::npos)
      << error("/g");
  EXPECT_NE(error("/g").find("upper_bound"), std::string::npos) << error("/g");
  EXPECT_OK(RouterSpecFromConfig(config, "/e", true));
}

}  // namespace
}  // namespace cairn::actor::routing
