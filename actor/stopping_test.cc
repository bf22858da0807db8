// Stopping actors (seed 004) and DeathWatch.
#include <atomic>
#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/envelope.h"
#include "actor/internal/system_message.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

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

// Something a child watches: the child's Unwatch, which it sends as it
// ends (after telling its watchers, before telling its parent), waits here
// until the test lets it go.
class PausingSubject final : public internal::ActorRefImpl {
 public:
  explicit PausingSubject(ActorSystem* system) : system_(system) {}

  void Deliver(internal::Envelope* envelope) override { envelope->Dispose(); }
  void SendSystem(internal::SystemMessage* message) override {
    const internal::SystemMessageKind kind = message->kind;
    delete message;
    if (kind == internal::SystemMessageKind::kWatch) watched.Notify();
    if (kind != internal::SystemMessageKind::kUnwatch) return;
    paused.Notify();
    resume.WaitForNotificationWithTimeout(absl::Seconds(60));
  }
  ActorPath Path() const override {
    return ActorPath(system_->address(), {"user", "pausing-subject"});
  }
  bool IsTerminated() const override { return false; }
  ActorSystem* GetSystem() const override { return system_; }

  absl::Notification watched;
  absl::Notification paused;
  absl::Notification resume;

 private:
  ActorSystem* const system_;
};

class SubjectWatcher final : public Actor {
 public:
  explicit SubjectWatcher(ActorRef subject) : subject_(std::move(subject)) {}
  void PreStart() override { Context().Watch(subject_); }

 private:
  ActorRef subject_;
};

// Starts a SubjectWatcher on `dispatcher` and watches it, as a region
// watches its shards.
class WatchingParent final : public Actor {
 public:
  WatchingParent(ActorRef subject, std::string dispatcher)
      : subject_(std::move(subject)), dispatcher_(std::move(dispatcher)) {}
  void PreStart() override {
    Context().Watch(Context().ActorOf(
        Props::Create<SubjectWatcher>(subject_).WithDispatcher(dispatcher_),
        "child"));
  }

 private:
  ActorRef subject_;
  std::string dispatcher_;
};

// Tells when it runs: on a one-thread dispatcher, after what was running.
class Marker final : public Actor {
 public:
  explicit Marker(absl::Notification* ran) {
    ReceiveAny([ran](const AnyMessage&) { ran->Notify(); });
  }
};

TEST(DeathWatchTest, AParentThatWatchesItsChildHearsOfItsEndOnce) {
  // Twice (as a watcher, then as the parent), the second notice could come
  // after the parent had closed on the first; once the dispatcher stopped,
  // it stayed in the parent's queue holding the child, which holds its
  // parent: the region and its shards leaked (LeakSanitizer, once in a
  // loaded run). Here the child ends on a thread of its own, and pauses
  // between its notice to its watchers and the one to its parent.
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(R"(
    akka.actor.child-thread {
      type = Dispatcher
      fork-join-executor { parallelism-min = 1, parallelism-max = 1 }
    }
  )");
  ASSERT_TRUE(config.ok()) << config.status();
  TestKit kit(TestKit::Deterministic{
      .config = config->WithFallback(TestKit::TestConfig())});
  auto* pausing = new PausingSubject(&kit.Sys());
  ActorRef subject(pausing);
  ActorRef parent = kit.Sys().ActorOf(Props::Create<WatchingParent>(
      subject, std::string("akka.actor.child-thread")));
  kit.DispatchAll();
  ASSERT_TRUE(
      pausing->watched.WaitForNotificationWithTimeout(absl::Seconds(30)));

  kit.Sys().Stop(parent);
  kit.DispatchAll();  // the parent stops its child, and waits for it
  ASSERT_TRUE(
      pausing->paused.WaitForNotificationWithTimeout(absl::Seconds(30)));
  // The child has told its watchers and not yet its parent: the parent,
  // one of its watchers, has heard nothing yet.
  kit.DispatchAll();
  EXPECT_FALSE(parent.impl()->IsTerminated())
      << "the parent heard as a watcher, and will hear again as the parent";

  // The child finishes ending; the marker runs after it, on its thread.
  absl::Notification marked;
  ActorRef marker = kit.Sys().ActorOf(
      Props::Create<Marker>(&marked).WithDispatcher("akka.actor.child-thread"));
  marker.Tell(std::string("after the child"));
  pausing->resume.Notify();
  ASSERT_TRUE(marked.WaitForNotificationWithTimeout(absl::Seconds(30)));
  kit.DispatchAll();
  EXPECT_TRUE(parent.impl()->IsTerminated());
}

// A ref that holds `held` (and a token, gone when this is).
class RefHolder final : public internal::ActorRefImpl {
 public:
  RefHolder(ActorRef held, std::shared_ptr<int> token)
      : held_(std::move(held)), token_(std::move(token)) {}

  void Deliver(internal::Envelope* envelope) override { envelope->Dispose(); }
  ActorPath Path() const override {
    return ActorPath(held_.Path().address(), {"user", "holder"});
  }
  bool IsTerminated() const override { return false; }
  ActorSystem* GetSystem() const override { return held_.impl()->GetSystem(); }

 private:
  ActorRef held_;
  std::shared_ptr<int> token_;
};

TEST(DeathWatchTest, ASystemMessageLeftInAStoppedActorAtShutdownIsReleased) {
  // Nothing handles it any more, and it may hold what holds the actor (a
  // watcher that holds it, here): kept until the actor's last reference
  // went, the two would have kept each other for good.
  std::weak_ptr<int> token_alive;
  {
    TestKit kit(TestKit::Deterministic{});
    ActorRef a = kit.Sys().ActorOf(Props::Create<Recorder>(kit.TestActor()));
    kit.Watch(a);
    a.Tell(PoisonPill{});
    kit.ExpectTerminated(a);
    auto token = std::make_shared<int>(1);
    token_alive = token;
    ActorRef holder(new RefHolder(a, std::move(token)));
    kit.Sys().Terminate().wait();
    a.impl()->SendSystem(new internal::SystemMessage(
        internal::SystemMessageKind::kWatch, holder));
  }
  EXPECT_TRUE(token_alive.expired())
      << "the stopped actor and its late watcher hold each other";
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
