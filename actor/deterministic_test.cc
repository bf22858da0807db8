// The deterministic TestKit mode: actors run on the test's thread, one
// turn at a time, with a ManualClock; no test here waits on real time.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/testkit/event_filter.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::EventFilter;
using testkit::TestKit;
using testkit::TestKitAssertion;
using testkit::TestProbe;

// Lines written by actors and read by the test (on the same thread in this
// mode, but the lock keeps the class honest).
class Log {
 public:
  void Add(std::string line) {
    base::MutexLock lock(&mu_);
    lines_.push_back(std::move(line));
  }
  std::vector<std::string> Lines() const {
    base::MutexLock lock(&mu_);
    return lines_;
  }

 private:
  mutable base::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

// Logs "<name>:<message>" for each string, then forwards it to `next`.
class Relay final : public Actor {
 public:
  Relay(std::string name, Log* log, ActorRef next)
      : name_(std::move(name)), log_(log), next_(std::move(next)) {
    Receive<std::string>([this](const std::string& m) {
      log_->Add(absl::StrCat(name_, ":", m));
      next_.Tell(m);
    });
  }

 private:
  std::string name_;
  Log* log_;
  ActorRef next_;
};

TEST(DeterministicTest, NothingRunsUntilDispatched) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  EXPECT_TRUE(kit.IsDeterministic());
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<Relay>(std::string("a"), &log, kit.TestActor()));
  a.Tell(std::string("x"));
  EXPECT_TRUE(log.Lines().empty());
  EXPECT_EQ(kit.TestActorProbe().PendingCount(), 0u);
  EXPECT_GT(kit.DispatchAll(), 0);
  EXPECT_EQ(log.Lines(), std::vector<std::string>{"a:x"});
  EXPECT_EQ(kit.TestActorProbe().PendingCount(), 1u);
  kit.ExpectMsg<std::string>("x");
  EXPECT_EQ(kit.DispatchAll(), 0);
  EXPECT_FALSE(kit.DispatchOne());
}

// Two actors each get two messages: one message per turn, mailboxes in the
// order they became runnable, so the interleaving is exact.
TEST(DeterministicTest, DispatchOneRunsOneMessageOfTheFirstRunnableMailbox) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<Relay>(std::string("a"), &log, ActorRef()), "a");
  ActorRef b = kit.Sys().ActorOf(
      Props::Create<Relay>(std::string("b"), &log, ActorRef()), "b");
  kit.DispatchAll();  // both created
  a.Tell(std::string("1"));
  a.Tell(std::string("2"));
  b.Tell(std::string("3"));
  b.Tell(std::string("4"));
  ASSERT_TRUE(kit.DispatchOne());
  EXPECT_EQ(log.Lines(), std::vector<std::string>{"a:1"});
  ASSERT_TRUE(kit.DispatchOne());
  EXPECT_EQ(log.Lines(), (std::vector<std::string>{"a:1", "b:3"}));
  EXPECT_EQ(kit.DispatchAll(), 2);
  EXPECT_EQ(log.Lines(),
            (std::vector<std::string>{"a:1", "b:3", "a:2", "b:4"}));
}

TEST(DeterministicTest, ExpectNoMsgNeedsNoWaitAndExpectFailsAtOnce) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(
      Props::Create<Relay>(std::string("a"), &log, kit.TestActor()));
  a.Tell(std::string("x"));
  kit.ExpectMsg<std::string>("x");
  const absl::Time start = absl::Now();
  kit.ExpectNoMsg(absl::Hours(1));  // no wall-clock wait in this mode
  EXPECT_THROW(kit.ExpectMsg<std::string>(absl::Hours(1)), TestKitAssertion);
  EXPECT_LT(absl::Now() - start, absl::Minutes(1));
  a.Tell(std::string("late"));
  EXPECT_THROW(kit.ExpectNoMsg(), TestKitAssertion);
}

// A chain a -> b -> probe: the probe sees messages in send order, and a
// second probe sees nothing, checked without waiting.
TEST(DeterministicTest, OrderingThroughAChainIsExact) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  std::unique_ptr<TestProbe> probe = kit.CreateTestProbe();
  std::unique_ptr<TestProbe> other = kit.CreateTestProbe();
  ActorRef b = kit.Sys().ActorOf(
      Props::Create<Relay>(std::string("b"), &log, probe->Ref()));
  ActorRef a =
      kit.Sys().ActorOf(Props::Create<Relay>(std::string("a"), &log, b));
  for (int i = 0; i < 3; ++i) a.Tell(absl::StrCat(i));
  for (int i = 0; i < 3; ++i) probe->ExpectMsg<std::string>(absl::StrCat(i));
  probe->ExpectNoMsg();
  other->ExpectNoMsg();
  // a's turns and b's alternate: a:0, then b:0 became runnable behind a.
  EXPECT_EQ(log.Lines(), (std::vector<std::string>{"a:0", "b:0", "a:1", "b:1",
                                                   "a:2", "b:2"}));
}

// Records its life cycle; fails on "fail".
class Hooked final : public Actor {
 public:
  Hooked(std::string name, Log* log) : name_(std::move(name)), log_(log) {
    log_->Add(name_ + ":constructor");
    Receive<std::string>([this](const std::string& m) {
      if (m == "fail") throw std::runtime_error("boom");
      log_->Add(name_ + ":" + m);
    });
  }
  void PreStart() override { log_->Add(name_ + ":PreStart"); }
  void PostStop() override { log_->Add(name_ + ":PostStop"); }
  void PreRestart(const std::exception_ptr& reason,
                  const AnyMessage& message) override {
    log_->Add(name_ + ":PreRestart");
    Actor::PreRestart(reason, message);
  }
  void PostRestart(const std::exception_ptr& reason) override {
    log_->Add(name_ + ":PostRestart");
    Actor::PostRestart(reason);
  }

 private:
  std::string name_;
  Log* log_;
};

// Creates two Hooked children, restarting or stopping them on failure.
class Parent final : public Actor {
 public:
  Parent(Log* log, bool stop_on_failure)
      : log_(log), stop_on_failure_(stop_on_failure) {
    Context().ActorOf(Props::Create<Hooked>(std::string("c1"), log_), "c1");
    Context().ActorOf(Props::Create<Hooked>(std::string("c2"), log_), "c2");
    Receive<std::string>([this](const std::string& m) {
      Context().Child(m.substr(0, 2)).Tell(m.substr(3));
    });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<OneForOneStrategy>(
        10, absl::Minutes(1),
        Decider().Otherwise(stop_on_failure_ ? Directive::kStop
                                             : Directive::kRestart));
  }
  void PostStop() override { log_->Add("parent:PostStop"); }

 private:
  Log* log_;
  bool stop_on_failure_;
};

TEST(DeterministicTest, RestartSequenceIsExact) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  ActorRef parent =
      kit.Sys().ActorOf(Props::Create<Parent>(&log, false), "parent");
  parent.Tell(std::string("c1:a"));
  parent.Tell(std::string("c1:fail"));
  parent.Tell(std::string("c1:b"));
  parent.Tell(std::string("c2:c"));
  kit.DispatchAll();
  // The parent's first turn creates it (queueing c1 and c2) and forwards
  // "a"; c1's first turn creates it and takes "a"; the failure suspends c1
  // until the parent has decided, and "b" waits for the new instance.
  EXPECT_EQ(log.Lines(),
            (std::vector<std::string>{
                "c1:constructor", "c1:PreStart", "c1:a", "c2:constructor",
                "c2:PreStart", "c1:PreRestart", "c1:PostStop", "c1:constructor",
                "c1:PostRestart", "c1:PreStart", "c1:b", "c2:c"}));
}

TEST(DeterministicTest, StopOnFailureAndDeathWatchAreExact) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  ActorRef parent =
      kit.Sys().ActorOf(Props::Create<Parent>(&log, true), "parent");
  kit.DispatchAll();
  ActorRef c1 = kit.Sys()
                    .ActorSelection("/user/parent/c1")
                    .ResolveOne(absl::Seconds(1))
                    .get();
  kit.Watch(c1);
  parent.Tell(std::string("c1:fail"));
  parent.Tell(std::string("c1:after"));  // reaches a stopped child
  kit.ExpectTerminated(c1);
  kit.ExpectNoMsg();
  EXPECT_EQ(log.Lines().back(), "c1:PostStop");
  // The parent and the other child are untouched.
  parent.Tell(std::string("c2:alive"));
  kit.DispatchAll();
  EXPECT_EQ(log.Lines().back(), "c2:alive");
  kit.Sys().Stop(parent);
  kit.Watch(parent);
  kit.ExpectTerminated(parent);
  const std::vector<std::string> lines = log.Lines();
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[lines.size() - 2], "c2:PostStop");
  EXPECT_EQ(lines.back(), "parent:PostStop");
}

// Reports ReceiveTimeout and, after `delay`, a scheduled "tick".
class Timed final : public Actor {
 public:
  explicit Timed(ActorRef observer) : observer_(std::move(observer)) {
    Context().SetReceiveTimeout(absl::Seconds(10));
    Receive<ReceiveTimeout>([this](const ReceiveTimeout&) {
      observer_.Tell(std::string("timeout"));
    });
    Receive<std::string>([this](const std::string& m) {
      if (m == "schedule") {
        Context().System().Scheduler().ScheduleTellOnce(
            absl::Seconds(3), Self(), std::string("tick"), Self());
        return;
      }
      observer_.Tell(m);
    });
  }

 private:
  ActorRef observer_;
};

TEST(DeterministicTest, TimersFireOnAdvanceAndRunOnDispatch) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Timed>(kit.TestActor()));
  a.Tell(std::string("schedule"));
  kit.DispatchAll();
  kit.TestClock().Advance(absl::Seconds(2));
  kit.ExpectNoMsg();
  kit.TestClock().Advance(absl::Seconds(1));
  kit.ExpectMsg<std::string>("tick");  // t = 3 s, the tick reset the timer
  kit.TestClock().Advance(absl::Seconds(9));
  kit.ExpectNoMsg();
  kit.TestClock().Advance(absl::Seconds(1));
  kit.ExpectMsg<std::string>("timeout");
  kit.ExpectNoMsg();
}

// Stashes strings until "open", then echoes them, in order.
class Gate final : public Actor {
 public:
  Gate() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "open") {
        Become([this] {
          Receive<std::string>(
              [this](const std::string& x) { Sender().Tell(x); });
        });
        UnstashAll();
        return;
      }
      Stash();
    });
  }
};

TEST(DeterministicTest, BecomeAndStashKeepOrder) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef gate = kit.Sys().ActorOf(Props::Create<Gate>());
  gate.Tell(std::string("1"));
  gate.Tell(std::string("2"));
  kit.ExpectNoMsg();
  gate.Tell(std::string("open"));
  gate.Tell(std::string("3"));
  for (const char* m : {"1", "2", "3"}) kit.ExpectMsg<std::string>(m);
  kit.ExpectNoMsg();
}

// Answers every int with the next one, to `peer`: never ends.
class Ping final : public Actor {
 public:
  Ping() {
    Receive<ActorRef>([this](const ActorRef& peer) { peer_ = peer; });
    Receive<int>([this](int n) { peer_.Tell(n + 1); });
  }

 private:
  ActorRef peer_;
};

TEST(DeterministicTest, DispatchAllBoundCatchesAnEndlessPingPong) {
  TestKit kit(TestKit::Deterministic{.max_turns = 1000});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Ping>());
  ActorRef b = kit.Sys().ActorOf(Props::Create<Ping>());
  a.Tell(b);
  b.Tell(a);
  a.Tell(0);
  try {
    kit.DispatchAll();
    FAIL() << "DispatchAll returned on an endless ping-pong";
  } catch (const TestKitAssertion& e) {
    EXPECT_NE(std::string(e.what()).find("after 1000 turns"), std::string::npos)
        << e.what();
  }
  // Expect* hit the same bound instead of hanging; the destructor stops
  // them (each stop is a system message, taken before the next int).
  EXPECT_THROW(kit.ExpectNoMsg(), TestKitAssertion);
}

// Answers "ask" with "answer"; ignores the rest.
class Answerer final : public Actor {
 public:
  Answerer() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "ask") Sender().Tell(std::string("answer"));
    });
  }
};

TEST(DeterministicTest, AskGetRunsTheQueueOrFailsWhenItCouldNeverComplete) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef a = kit.Sys().ActorOf(Props::Create<Answerer>());
  EXPECT_EQ(Ask<std::string>(a, std::string("ask"), absl::Seconds(1)).get(),
            "answer");
  // No reply ever comes, and the ManualClock never moves the timeout: the
  // wait fails instead of hanging.
  Future<std::string> never =
      Ask<std::string>(a, std::string("silence"), absl::Seconds(1));
  EXPECT_THROW(never.get(), std::logic_error);
  // Once the clock passes the timeout, the ask fails as usual.
  kit.TestClock().Advance(absl::Seconds(1));
  EXPECT_THROW(never.get(), AskTimeoutException);
}

// Asks `target` and waits for the answer inside its own turn.
class BlockingAsker final : public Actor {
 public:
  explicit BlockingAsker(ActorRef target) : target_(std::move(target)) {
    Receive<std::string>([this](const std::string&) {
      Sender().Tell(
          Ask<std::string>(target_, std::string("ask"), absl::Seconds(1))
              .get());
    });
  }

 private:
  ActorRef target_;
};

TEST(DeterministicTest, ABlockingWaitInsideAnActorFailsTheActor) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef answerer = kit.Sys().ActorOf(Props::Create<Answerer>());
  ActorRef asker =
      kit.Sys().ActorOf(Props::Create<BlockingAsker>(answerer), "asker");
  EventFilter::Exception<std::logic_error>("would wait for its own thread")
      .ExpectOne(kit.Sys(), [&] { asker.Tell(std::string("go")); });
  kit.ExpectNoMsg();
}

TEST(DeterministicTest, AZeroDelayTimerFiresAtTheNextDispatch) {
  TestKit kit(TestKit::Deterministic{});
  kit.Sys().Scheduler().ScheduleTellOnce(absl::ZeroDuration(), kit.TestActor(),
                                         std::string("now"));
  // No timer thread: it is sent on this thread, when the kit dispatches.
  EXPECT_EQ(kit.TestActorProbe().PendingCount(), 0u);
  kit.ExpectMsg<std::string>("now");
}

TEST(DeterministicTest, GracefulStopWaitRunsTheStop) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  ActorRef parent =
      kit.Sys().ActorOf(Props::Create<Parent>(&log, false), "parent");
  EXPECT_TRUE(GracefulStop(parent, absl::Seconds(1)).get());
  EXPECT_EQ(log.Lines().back(), "parent:PostStop");
}

TEST(DeterministicTest, EventFilterCountsAfterDispatching) {
  Log log;  // outlives the kit: actors log until it stops them
  TestKit kit(TestKit::Deterministic{});
  ActorRef parent =
      kit.Sys().ActorOf(Props::Create<Parent>(&log, false), "parent");
  EventFilter::Exception<std::runtime_error>("boom").ExpectOne(
      kit.Sys(), [&] { parent.Tell(std::string("c1:fail")); });
}

TEST(DeterministicTest, DestructorStopsLiveActorsOnThisThread) {
  Log log;
  {
    TestKit kit(TestKit::Deterministic{});
    kit.Sys().ActorOf(Props::Create<Parent>(&log, false), "parent");
    kit.DispatchAll();
  }
  const std::vector<std::string> lines = log.Lines();
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines.back(), "parent:PostStop");
}

TEST(DeterministicTest, DispatchCallsOutsideTheModeFail) {
  TestKit kit;
  EXPECT_FALSE(kit.IsDeterministic());
  EXPECT_THROW(kit.DispatchAll(), TestKitAssertion);
}

TEST(DeterministicTest, SystemMadeByConfigAloneTerminatesOnDestruction) {
  ManualClock clock;
  ActorSystem::Options options;
  options.clock = &clock;
  Log log;
  {
    std::unique_ptr<ActorSystem> system =
        ActorSystem::Create(
            "plain",
            hocon::Config::ParseString(
                "akka.loglevel = WARNING\n"
                "akka.actor.default-dispatcher.type = CallingThreadDispatcher")
                .value(),
            options)
            .value();
    system->ActorOf(Props::Create<Parent>(&log, false), "parent");
  }
  EXPECT_EQ(log.Lines().back(), "parent:PostStop");
}

}  // namespace
}  // namespace cairn::actor
