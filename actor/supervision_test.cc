// The seed documents' supervision walk-throughs, reproduced literally, and
// the rules around them (retry windows, all-for-one, hook order).
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

// The seed's exception types.
struct ArithmeticException : std::runtime_error {
  ArithmeticException() : std::runtime_error("arithmetic") {}
};
struct NullReferenceException : std::runtime_error {
  NullReferenceException() : std::runtime_error("null reference") {}
};
using ArgumentException = std::invalid_argument;

Decider SeedDecider() {
  return Decider()
      .On<ArithmeticException>(Directive::kResume)
      .On<NullReferenceException>(Directive::kRestart)
      .On<ArgumentException>(Directive::kStop)
      .Otherwise(Directive::kEscalate);
}

class Supervisor : public Actor {
 public:
  Supervisor() {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p)); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<OneForOneStrategy>(10, absl::Minutes(1),
                                               SeedDecider());
  }
};

// The seed's Supervisor2: an empty PreRestart keeps the children.
class Supervisor2 final : public Supervisor {
 public:
  void PreRestart(const std::exception_ptr&, const AnyMessage&) override {}
};

class Child final : public Actor {
 public:
  Child() {
    Receive<std::exception_ptr>(
        [](const std::exception_ptr& e) { std::rethrow_exception(e); });
    Receive<int>([this](int x) { state_ = x; });
    Receive<std::string>([this](const std::string& m) {
      if (m == "get") Sender().Tell(state_);
    });
  }

 private:
  int state_ = 0;
};

template <typename E>
std::exception_ptr Crash(E e) {
  return std::make_exception_ptr(std::move(e));
}

TEST(SupervisionSeedTest, ResumeRestartStopEscalate) {
  TestKit kit;
  ActorRef supervisor =
      kit.Sys().ActorOf(Props::Create<Supervisor>(), "supervisor");
  supervisor.Tell(Props::Create<Child>());
  ActorRef child = kit.ExpectMsg<ActorRef>();

  child.Tell(42);
  child.Tell(std::string("get"));
  kit.ExpectMsg<int>(42);

  child.Tell(Crash(ArithmeticException()));  // Resume: state survives
  child.Tell(std::string("get"));
  kit.ExpectMsg<int>(42);

  child.Tell(Crash(NullReferenceException()));  // Restart: fresh state
  child.Tell(std::string("get"));
  kit.ExpectMsg<int>(0);

  kit.Watch(child);
  child.Tell(Crash(ArgumentException("bad")));  // Stop
  EXPECT_EQ(kit.ExpectMsg<Terminated>().actor, child);

  supervisor.Tell(Props::Create<Child>());
  ActorRef child2 = kit.ExpectMsg<ActorRef>();
  kit.Watch(child2);
  child2.Tell(std::string("get"));
  kit.ExpectMsg<int>(0);
  // Escalate: the guardian restarts the supervisor, whose default
  // PreRestart stops its children.
  child2.Tell(Crash(std::runtime_error("CRASH")));
  Terminated t = kit.ExpectMsg<Terminated>();
  EXPECT_EQ(t.actor, child2);
  EXPECT_TRUE(t.existence_confirmed);
}

TEST(SupervisionSeedTest, Supervisor2KeepsItsChildButRestartsIt) {
  TestKit kit;
  ActorRef supervisor2 =
      kit.Sys().ActorOf(Props::Create<Supervisor2>(), "supervisor2");
  supervisor2.Tell(Props::Create<Child>());
  ActorRef child3 = kit.ExpectMsg<ActorRef>();
  child3.Tell(23);
  child3.Tell(std::string("get"));
  kit.ExpectMsg<int>(23);
  child3.Tell(Crash(std::runtime_error("CRASH")));
  child3.Tell(std::string("get"));
  kit.ExpectMsg<int>(0);
}

// Retry limits: a strategy allowing 2 restarts per minute stops the child
// at the third failure within the window, not after it.
class Limited final : public Actor {
 public:
  Limited(int retries, absl::Duration window)
      : retries_(retries), window_(window) {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p)); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<OneForOneStrategy>(
        retries_, window_, Decider().Otherwise(Directive::kRestart));
  }

 private:
  int retries_;
  absl::Duration window_;
};

TEST(SupervisionTest, RetryLimitWithinAWindowStopsTheChild) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup = kit.Sys().ActorOf(Props::Create<Limited>(2, absl::Minutes(1)));
  sup.Tell(Props::Create<Child>());
  ActorRef child = kit.ExpectMsg<ActorRef>();
  kit.Watch(child);
  for (int i = 0; i < 2; ++i) {
    child.Tell(Crash(std::runtime_error("x")));
    child.Tell(std::string("get"));
    kit.ExpectMsg<int>(0);  // restarted, still alive
  }
  child.Tell(Crash(std::runtime_error("x")));
  kit.ExpectTerminated(child);
}

TEST(SupervisionTest, FailuresOutsideTheWindowStartANewCount) {
  ManualClock clock;
  TestKit kit(TestKit::TestConfig(), &clock);
  ActorRef sup =
      kit.Sys().ActorOf(Props::Create<Limited>(1, absl::Seconds(10)));
  sup.Tell(Props::Create<Child>());
  ActorRef child = kit.ExpectMsg<ActorRef>();
  kit.Watch(child);
  for (int i = 0; i < 3; ++i) {
    child.Tell(Crash(std::runtime_error("x")));
    child.Tell(std::string("get"));
    kit.ExpectMsg<int>(0);
    clock.Advance(absl::Seconds(11));
  }
  child.Tell(Crash(std::runtime_error("x")));
  child.Tell(Crash(std::runtime_error("y")));  // second within 10 s
  kit.ExpectTerminated(child);
}

TEST(SupervisionTest, ZeroRetriesStopsAtTheFirstFailure) {
  TestKit kit;
  ActorRef sup =
      kit.Sys().ActorOf(Props::Create<Limited>(0, absl::InfiniteDuration()));
  sup.Tell(Props::Create<Child>());
  ActorRef child = kit.ExpectMsg<ActorRef>();
  kit.Watch(child);
  child.Tell(Crash(std::runtime_error("x")));
  kit.ExpectTerminated(child);
}

// Fails on a message it sent itself, with itself as the sender.
class FailsOnItsOwnMessage final : public Actor {
 public:
  explicit FailsOnItsOwnMessage(std::shared_ptr<int> token)
      : token_(std::move(token)) {
    Receive<std::string>([](const std::string&) {
      throw std::runtime_error("failed on its own message");
    });
  }
  void PreStart() override { Self().Tell(std::string("go"), Self()); }

 private:
  std::shared_ptr<int> token_;
};

// The message an actor failed on is kept for PreRestart; when the actor is
// stopped instead, it must go: a message whose sender is the actor itself
// kept the actor's cell, and all its props hold, alive after the system
// was gone (a leak LeakSanitizer found in a projection's runner).
TEST(SupervisionTest, AnActorStoppedAfterFailingOnItsOwnMessageIsFreed) {
  auto token = std::make_shared<int>(0);
  {
    TestKit kit;
    ActorRef sup =
        kit.Sys().ActorOf(Props::Create<Limited>(0, absl::InfiniteDuration()));
    sup.Tell(Props::Create<FailsOnItsOwnMessage>(token));
    ActorRef child = kit.ExpectMsg<ActorRef>();
    kit.Watch(child);
    kit.ExpectTerminated(child);
  }
  EXPECT_EQ(token.use_count(), 1);
}

class AllForOne final : public Actor {
 public:
  explicit AllForOne(Directive d) : directive_(d) {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p)); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<AllForOneStrategy>(Decider().Otherwise(directive_));
  }

 private:
  Directive directive_;
};

TEST(SupervisionTest, AllForOneRestartsEverySibling) {
  TestKit kit;
  ActorRef sup =
      kit.Sys().ActorOf(Props::Create<AllForOne>(Directive::kRestart));
  sup.Tell(Props::Create<Child>());
  ActorRef a = kit.ExpectMsg<ActorRef>();
  sup.Tell(Props::Create<Child>());
  ActorRef b = kit.ExpectMsg<ActorRef>();
  a.Tell(1);
  b.Tell(2);
  // b must have taken its state before the failure: a restart is a system
  // message and would overtake a queued user message.
  b.Tell(std::string("get"));
  kit.ExpectMsg<int>(2);
  a.Tell(Crash(std::runtime_error("a fails")));
  a.Tell(std::string("get"));
  EXPECT_EQ(kit.ExpectMsg<int>(), 0);
  // The supervisor answers only after it has handled the failure in full
  // (system messages first), so b's restart has been sent by then.
  sup.Tell(Props::Create<Child>());
  kit.ExpectMsg<ActorRef>();
  b.Tell(std::string("get"));
  EXPECT_EQ(kit.ExpectMsg<int>(), 0);  // b was restarted too
}

TEST(SupervisionTest, AllForOneStopStopsEverySibling) {
  TestKit kit;
  ActorRef sup = kit.Sys().ActorOf(Props::Create<AllForOne>(Directive::kStop));
  sup.Tell(Props::Create<Child>());
  ActorRef a = kit.ExpectMsg<ActorRef>();
  sup.Tell(Props::Create<Child>());
  ActorRef b = kit.ExpectMsg<ActorRef>();
  kit.Watch(a);
  kit.Watch(b);
  a.Tell(Crash(std::runtime_error("a fails")));
  kit.ExpectMsg<Terminated>();
  kit.ExpectMsg<Terminated>();
}

TEST(SupervisionTest, OneForOneLeavesSiblingsAlone) {
  TestKit kit;
  ActorRef sup = kit.Sys().ActorOf(Props::Create<Supervisor>());
  sup.Tell(Props::Create<Child>());
  ActorRef a = kit.ExpectMsg<ActorRef>();
  sup.Tell(Props::Create<Child>());
  ActorRef b = kit.ExpectMsg<ActorRef>();
  b.Tell(2);
  a.Tell(Crash(NullReferenceException()));
  b.Tell(std::string("get"));
  kit.ExpectMsg<int>(2);
}

// Records every lifecycle hook, with the instance number.
struct HookLog {
  base::Mutex mu;
  std::vector<std::string> events ABSL_GUARDED_BY(mu);
  std::atomic<int> instances{0};
  void Add(std::string e) {
    base::MutexLock lock(&mu);
    events.push_back(std::move(e));
  }
  std::vector<std::string> Take() {
    base::MutexLock lock(&mu);
    return std::exchange(events, {});
  }
};

class Hooked final : public Actor {
 public:
  explicit Hooked(HookLog* log) : log_(log), n_(++log->instances) {
    log_->Add(Tag("constructor"));
    Receive<std::string>([this](const std::string& m) {
      if (m == "fail") throw std::runtime_error("fail");
      Sender().Tell(m);
    });
  }
  ~Hooked() override { log_->Add(Tag("destructor")); }
  void PreStart() override { log_->Add(Tag("PreStart")); }
  void PostStop() override { log_->Add(Tag("PostStop")); }
  void PreRestart(const std::exception_ptr& reason,
                  const AnyMessage& message) override {
    log_->Add(Tag("PreRestart(" + *message.As<std::string>() + ")"));
    Actor::PreRestart(reason, message);
  }
  void PostRestart(const std::exception_ptr& reason) override {
    log_->Add(Tag("PostRestart"));
    Actor::PostRestart(reason);
  }

 private:
  std::string Tag(const std::string& e) const {
    return e + "#" + std::to_string(n_);
  }
  HookLog* log_;
  int n_;
};

TEST(SupervisionTest, RestartRunsTheHooksInAkkasOrder) {
  HookLog log;
  {
    TestKit kit;
    ActorRef a = kit.Sys().ActorOf(Props::Create<Hooked>(&log));
    a.Tell(std::string("ping"));
    kit.ExpectMsg<std::string>("ping");
    a.Tell(std::string("fail"));
    a.Tell(std::string("after"));
    kit.ExpectMsg<std::string>("after");  // the failed message is not retried
    kit.Watch(a);
    kit.Sys().Stop(a);
    kit.ExpectTerminated(a);
  }
  EXPECT_EQ(log.Take(),
            (std::vector<std::string>{
                "constructor#1", "PreStart#1", "PreRestart(fail)#1",
                "PostStop#1", "destructor#1", "constructor#2", "PostRestart#2",
                "PreStart#2", "PostStop#2", "destructor#2"}));
}

class ThrowsInConstructor final : public Actor {
 public:
  ThrowsInConstructor() { throw std::runtime_error("cannot start"); }
};

TEST(SupervisionTest, AConstructorThatThrowsIsStoppedByTheDefaultStrategy) {
  TestKit kit;
  auto errors = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<LogEvent>(errors->Ref());
  ActorRef a = kit.Sys().ActorOf(Props::Create<ThrowsInConstructor>());
  kit.Watch(a);
  kit.ExpectTerminated(a);
  LogEvent e = errors->ExpectMsg<LogEvent>();
  EXPECT_NE(e.message.find("ActorInitializationException"), std::string::npos)
      << e.message;
}

TEST(SupervisionTest, KillStopsTheActorThroughTheDefaultStrategy) {
  TestKit kit;
  ActorRef child = kit.Sys().ActorOf(Props::Create<Child>());
  child.Tell(5);
  kit.Watch(child);
  child.Tell(Kill{});
  child.Tell(std::string("get"));  // never processed: Kill suspends at once
  kit.ExpectTerminated(child);
}

}  // namespace
}  // namespace cairn::actor

namespace cairn::actor {
namespace {

class Crasher final : public Actor {
 public:
  Crasher() {
    Receive<std::string>([this](const std::string& m) {
      if (m == "crash") throw std::runtime_error("crash");
      Sender().Tell(m);
    });
  }
};

TEST(GuardianTest, TheUserGuardianRestartsByDefault) {
  TestKit kit;
  ActorRef a = kit.Sys().ActorOf(Props::Create<Crasher>());
  a.Tell(std::string("crash"));
  a.Tell(std::string("alive"));
  kit.ExpectMsg<std::string>("alive");
}

TEST(GuardianTest, AStoppingUserGuardianStopsFailedTopLevelActors) {
  TestKit kit(R"(akka.actor.guardian-supervisor-strategy = "stopping")");
  ActorRef a = kit.Sys().ActorOf(Props::Create<Crasher>());
  kit.Watch(a);
  a.Tell(std::string("crash"));
  kit.ExpectTerminated(a);
}

TEST(GuardianTest, AnUnknownGuardianStrategyIsAConfigurationError) {
  auto config = hocon::Config::ParseString(
                    "akka.actor.guardian-supervisor-strategy = sometimes")
                    .value();
  absl::StatusOr<std::unique_ptr<ActorSystem>> s =
      ActorSystem::Create("x", config);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("guardian-supervisor-strategy"),
            std::string::npos);
}

TEST(GuardianTest, TheSystemGuardianRestartsItsChildren) {
  TestKit kit;
  ActorRef service = kit.Sys().SystemActorOf(Props::Create<Crasher>(), "svc");
  EXPECT_EQ(service.Path().ToString(), "akka://test/system/svc");
  service.Tell(std::string("crash"));
  service.Tell(std::string("alive"));
  kit.ExpectMsg<std::string>("alive");
}

class ThrowsInPreStart final : public Actor {
 public:
  ThrowsInPreStart() {
    Receive<std::string>([](const std::string&) {});
  }
  void PreStart() override { throw std::runtime_error("no resources"); }
};

TEST(GuardianTest, PreStartThatThrowsIsAnInitializationFailure) {
  TestKit kit;
  auto errors = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<LogEvent>(errors->Ref());
  ActorRef a = kit.Sys().ActorOf(Props::Create<ThrowsInPreStart>());
  kit.Watch(a);
  kit.ExpectTerminated(a);
  LogEvent e = errors->ExpectMsg<LogEvent>();
  EXPECT_NE(e.message.find("ActorInitializationException"), std::string::npos);
  EXPECT_NE(e.message.find("PreStart"), std::string::npos) << e.message;
}

class QuietSupervisor final : public Actor {
 public:
  explicit QuietSupervisor(bool log) : log_(log) {
    Receive<Props>(
        [this](const Props& p) { Sender().Tell(Context().ActorOf(p)); });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<OneForOneStrategy>(
        Decider().Otherwise(Directive::kRestart), log_);
  }

 private:
  bool log_;
};

TEST(GuardianTest, FailureLoggingCanBeSwitchedOff) {
  TestKit kit(TestKit::Deterministic{});
  auto errors = kit.CreateTestProbe();
  kit.Sys().EventStream().Subscribe<LogEvent>(errors->Ref());
  for (bool log : {false, true}) {
    ActorRef sup = kit.Sys().ActorOf(Props::Create<QuietSupervisor>(log));
    sup.Tell(Props::Create<Crasher>());
    ActorRef child = kit.ExpectMsg<ActorRef>();
    child.Tell(std::string("crash"));
    child.Tell(std::string("alive"));
    kit.ExpectMsg<std::string>("alive");
    if (log) {
      EXPECT_EQ(errors->ExpectMsg<LogEvent>().level, LogLevel::kError);
    } else {
      errors->ExpectNoMsg();
    }
  }
}

}  // namespace
}  // namespace cairn::actor
