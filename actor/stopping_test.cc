// Stopping actors (seed 004) and DeathWatch.
#include <atomic>
#include <memory>
#include <string>

#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

class Recorder final : public Actor {
 public:
  explicit Recorder(ActorRef observer) : observer_(std::move(observer)) {
    Receive<std::string>([this](const std::string& m) {
      if (m == "stop-self") {
        Context().Stop(Self());
        observer_.Tell(std::string("still running this message"));
        return;
      }
      observer_.Tell(m);
    });
  }

 private:
  ActorRef observer_;
};

TEST(StoppingTest, PoisonPillIsProcessedAfterWhatWasQueuedBeforeIt) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  kit.Watch(a);
  a.Tell(std::string("1"));
  a.Tell(std::string("2"));
  a.Tell(PoisonPill{});
  a.Tell(std::string("3"));
  kit.ExpectMsg<std::string>("1");
  kit.ExpectMsg<std::string>("2");
  kit.ExpectTerminated(a);  // "3" went to dead letters
}

TEST(StoppingTest, StopTakesEffectAfterTheCurrentMessage) {
  TestKit kit;
  auto dead = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  ActorRef a = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  kit.Watch(a);
  a.Tell(std::string("stop-self"));
  a.Tell(std::string("queued behind the stop"));
  kit.ExpectMsg<std::string>("still running this message");
  kit.ExpectTerminated(a);
  EXPECT_EQ(*dead->ExpectMsg<DeadLetter>().message.As<std::string>(),
            "queued behind the stop");
}

TEST(StoppingTest, GracefulStopCompletesTrueWhenStopped) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  a.Tell(std::string("before"));
  Future<bool> stopped = GracefulStop(a, absl::Seconds(5));
  EXPECT_TRUE(stopped.get());
  kit.ExpectMsg<std::string>("before");
  // Stopping what is already stopped is confirmed at once.
  EXPECT_TRUE(GracefulStop(a, absl::Seconds(5)).get());
}

TEST(StoppingTest, GracefulStopCompletesFalseOnTimeout) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef a = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  // A stop message the actor does not stop on.
  Future<bool> stopped = GracefulStop(a, absl::Seconds(2), std::string("x"));
  kit.ExpectMsg<std::string>("x");
  clock.Advance(absl::Seconds(2));
  EXPECT_FALSE(stopped.get());
}

// Holds what its props gave it.
class Holder final : public Actor {
 public:
  explicit Holder(std::shared_ptr<int> held) : held_(std::move(held)) {}

 private:
  std::shared_ptr<int> held_;
};

TEST(StoppingTest, WhatThePropsHoldIsReleasedWhenTheActorStops) {
  // Not when the last ActorRef goes: that may be on a thread owned by what
  // the props hold (a store's worker finishing a task that held the
  // actor's Self()), which then joined itself: the cluster's store thread
  // ended a test with "Resource deadlock avoided".
  TestKit kit;
  auto held = std::make_shared<int>(7);
  std::weak_ptr<int> watch = held;
  ActorRef a = kit.Sys().ActorOf(Props::Create<Holder>(std::move(held)));
  kit.Watch(a);
  a.Tell(PoisonPill{});
  kit.ExpectTerminated(a);
  kit.AwaitCondition([&] { return watch.expired(); }, absl::Seconds(10),
                     "the props' share released while a ref is held");
  EXPECT_FALSE(a.IsNobody());  // the ref is still held here
}

TEST(DeathWatchTest, WatchingAnAlreadyDeadActorDeliversTerminatedOnce) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  auto first = kit.CreateTestProbe();
  first->Watch(a);
  a.Tell(PoisonPill{});
  first->ExpectTerminated(a);
  kit.Watch(a);  // after death
  Terminated t = kit.ExpectTerminated(a);
  // Akka: the late Watch reaches dead letters, which cannot confirm that
  // the actor existed.
  EXPECT_FALSE(t.existence_confirmed);
  kit.ExpectNoMsg();
}

// Watches a target on request; reports Terminated; can unwatch.
class Watcher final : public Actor {
 public:
  explicit Watcher(ActorRef observer) : observer_(std::move(observer)) {
    Receive<ActorRef>([this](const ActorRef& r) {
      Context().Watch(r);
      Context().Watch(r);  // twice is once
      Sender().Tell(std::string("watching"));
    });
    Receive<Terminated>([this](const Terminated& t) { observer_.Tell(t); });
  }

 private:
  ActorRef observer_;
};

TEST(DeathWatchTest, TerminatedArrivesExactlyOncePerWatch) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef target = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  ActorRef watcher = kit.Sys().ActorOf(Props::Create<Watcher>(kit.TestActor()));
  watcher.Tell(target);
  kit.ExpectMsg<std::string>("watching");
  kit.Sys().Stop(target);
  EXPECT_EQ(kit.ExpectMsg<Terminated>().actor, target);
  kit.ExpectNoMsg();
}

class UnwatchingWatcher final : public Actor {
 public:
  explicit UnwatchingWatcher(ActorRef observer)
      : observer_(std::move(observer)) {
    Receive<ActorRef>([this](const ActorRef& r) {
      Context().Watch(r);
      Context().Unwatch(r);
      Sender().Tell(std::string("done"));
    });
    Receive<Terminated>([this](const Terminated& t) { observer_.Tell(t); });
  }

 private:
  ActorRef observer_;
};

TEST(DeathWatchTest, UnwatchBeforeDeathMeansNoTerminated) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef target = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  ActorRef watcher =
      kit.Sys().ActorOf(Props::Create<UnwatchingWatcher>(kit.TestActor()));
  watcher.Tell(target);
  kit.ExpectMsg<std::string>("done");
  kit.Sys().Stop(target);
  kit.ExpectNoMsg();
}

// Watches without handling Terminated: DeathPactException stops it.
class Pact final : public Actor {
 public:
  Pact() {
    Receive<ActorRef>([this](const ActorRef& r) {
      Context().Watch(r);
      Sender().Tell(std::string("watching"));
    });
  }
};

TEST(DeathWatchTest, UnhandledTerminatedIsADeathPact) {
  TestKit kit;
  ActorRef target = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
  ActorRef pact = kit.Sys().ActorOf(Props::Create<Pact>());
  kit.Watch(pact);
  pact.Tell(target);
  kit.ExpectMsg<std::string>("watching");
  kit.Sys().Stop(target);
  kit.ExpectTerminated(pact);
}

// A chain of `depth` actors, each the parent of the next.
class Chain final : public Actor {
 public:
  Chain(int depth, ActorRef report) {
    if (depth > 1) {
      Context().ActorOf(Props::Create<Chain>(depth - 1, report), "c");
    } else {
      report.Tell(Self());
    }
  }
};

TEST(StoppingTest, ADeepHierarchyStopsWithoutRecursion) {
  TestKit kit;
  ActorRef top =
      kit.Sys().ActorOf(Props::Create<Chain>(1000, kit.TestActor()), "c");
  ActorRef leaf = kit.ExpectMsg<ActorRef>(absl::Seconds(30));
  EXPECT_EQ(leaf.Path().elements().size(), 1001u);  // user + 1000
  kit.Watch(top);
  kit.Watch(leaf);
  kit.Sys().Stop(top);
  EXPECT_EQ(kit.ExpectMsg<Terminated>(absl::Seconds(30)).actor, leaf);
  EXPECT_EQ(kit.ExpectMsg<Terminated>(absl::Seconds(30)).actor, top);
}

class Fragile final : public Actor {
 public:
  Fragile() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "fail") throw std::runtime_error("storm");
      Sender().Tell(1);
    });
  }
};

class Many final : public Actor {
 public:
  explicit Many(int n) {
    for (int i = 0; i < n; ++i) Context().ActorOf(Props::Create<Fragile>());
    Receive<std::string>([this](const std::string& m) {
      for (const ActorRef& c : Context().GetChildren()) c.Forward(m);
    });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<OneForOneStrategy>(
        Decider().Otherwise(Directive::kRestart), /*logging_enabled=*/false);
  }
};

TEST(StoppingTest, AFailureStormOfTenThousandChildrenIsHandled) {
  TestKit kit;
  constexpr int kChildren = 10'000;
  ActorRef parent = kit.Sys().ActorOf(Props::Create<Many>(kChildren));
  parent.Tell(std::string("fail"));
  parent.Tell(std::string("ping"));
  for (int i = 0; i < kChildren; ++i) kit.ExpectMsg<int>(absl::Seconds(60));
}

}  // namespace
}  // namespace cairn::actor
