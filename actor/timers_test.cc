// Actor timers (Actor::Timers()): every test runs in the deterministic mode
// with the kit's ManualClock, so timing is exact and nothing waits.
#include <stdexcept>
#include <string>

#include "actor/actor_system.h"
#include "actor/messages.h"
#include "actor/testkit/test_kit.h"
#include "actor/timer_scheduler.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

// What the timers send.
struct Tick {
  std::string name;
};
// Commands to the actor under test.
struct StartSingle {
  std::string key;
  std::string tick;
  absl::Duration delay;
};
struct StartAtFixedRate {
  std::string key;
  std::string tick;
  absl::Duration interval;
};
struct StartWithFixedDelay {
  std::string key;
  std::string tick;
  absl::Duration delay;
};
struct CancelTimer {
  std::string key;
};
struct CancelAllTimers {};
struct IsActive {  // answered with a bool
  std::string key;
};
struct Fail {};
struct Close {};  // stash every Tick until Open
struct Open {};

// Tells the observer "tick:<name>" for each Tick, "+sender" appended when
// the tick came with one.
class Timed final : public Actor {
 public:
  explicit Timed(ActorRef observer) : observer_(std::move(observer)) {
    Receive<Tick>([this](const Tick& t) {
      if (closed_) {
        Stash();
      } else {
        Report(t);
      }
    });
    Receive<StartSingle>([this](const StartSingle& m) {
      Timers().StartSingleTimer(m.key, Tick{m.tick}, m.delay);
    });
    Receive<StartAtFixedRate>([this](const StartAtFixedRate& m) {
      Timers().StartTimerAtFixedRate(m.key, Tick{m.tick}, m.interval);
    });
    Receive<StartWithFixedDelay>([this](const StartWithFixedDelay& m) {
      Timers().StartTimerWithFixedDelay(m.key, Tick{m.tick}, m.delay);
    });
    Receive<CancelTimer>(
        [this](const CancelTimer& m) { Timers().Cancel(m.key); });
    Receive<CancelAllTimers>(
        [this](const CancelAllTimers&) { Timers().CancelAll(); });
    Receive<IsActive>([this](const IsActive& m) {
      Sender().Tell(Timers().IsTimerActive(m.key));
    });
    Receive<Fail>(
        [](const Fail&) -> void { throw std::runtime_error("told to fail"); });
    Receive<Close>([this](const Close&) { closed_ = true; });
    Receive<Open>([this](const Open&) {
      closed_ = false;
      UnstashAll();
    });
  }

 private:
  void Report(const Tick& t) {
    observer_.Tell(std::string("tick:") + t.name +
                   (Sender().IsNobody() ? "" : "+sender"));
  }

  ActorRef observer_;
  bool closed_ = false;
};

class TimersTest : public ::testing::Test {
 protected:
  TimersTest()
      : kit_(TestKit::Deterministic{}),
        timed_(kit_.Sys().ActorOf(Props::Create<Timed>(kit_.TestActor()))) {}

  // Queues `m` and runs everything (no timer is due meanwhile).
  template <typename T>
  void Send(T m) {
    timed_.Tell(std::move(m));
    kit_.DispatchAll();
  }
  void Advance(absl::Duration d) { kit_.TestClock().Advance(d); }
  bool Active(const std::string& key) {
    timed_.Tell(IsActive{key});
    return kit_.ExpectMsg<bool>();
  }

  TestKit kit_;
  ActorRef timed_;
};

TEST_F(TimersTest, SingleTimerFiresOnceWithNoSenderAndIsThenInactive) {
  Send(StartSingle{"t", "once", absl::Seconds(1)});
  EXPECT_TRUE(Active("t"));
  Advance(absl::Milliseconds(999));
  kit_.ExpectNoMsg();
  EXPECT_TRUE(Active("t"));
  Advance(absl::Milliseconds(1));
  kit_.ExpectMsg<std::string>("tick:once");
  EXPECT_FALSE(Active("t"));
  Advance(absl::Seconds(10));
  kit_.ExpectNoMsg();
}

TEST_F(TimersTest, FixedRateTimerRepeatsUntilCancelled) {
  Send(StartAtFixedRate{"t", "rate", absl::Seconds(1)});
  for (int i = 0; i < 3; ++i) {
    Advance(absl::Seconds(1));
    kit_.ExpectMsg<std::string>("tick:rate");
  }
  EXPECT_TRUE(Active("t"));
  timed_.Tell(CancelTimer{"t"});
  EXPECT_FALSE(Active("t"));
  Advance(absl::Seconds(5));
  kit_.ExpectNoMsg();
}

TEST_F(TimersTest, StartingUnderAKeyInUseReplacesTheTimer) {
  Send(StartSingle{"t", "old", absl::Seconds(1)});
  Send(StartSingle{"t", "new", absl::Seconds(2)});
  Advance(absl::Seconds(1));
  kit_.ExpectNoMsg();
  Advance(absl::Seconds(1));
  kit_.ExpectMsg<std::string>("tick:new");
  kit_.ExpectNoMsg();
}

TEST_F(TimersTest, ACancelledTimersMessageAlreadyInTheMailboxIsDropped) {
  Send(StartSingle{"t", "cancelled", absl::Seconds(1)});
  // The cancel is queued first, the tick behind it: the tick is in the
  // mailbox when its timer is cancelled.
  timed_.Tell(CancelTimer{"t"});
  Advance(absl::Seconds(1));
  kit_.ExpectNoMsg();
}

TEST_F(TimersTest, AReplacedTimersMessageAlreadyInTheMailboxIsDropped) {
  Send(StartAtFixedRate{"t", "old", absl::Seconds(1)});
  timed_.Tell(StartAtFixedRate{"t", "new", absl::Seconds(3)});
  Advance(absl::Seconds(1));  // queues an "old" tick behind the new start
  kit_.ExpectNoMsg();  // the new start ran at 1 s: its first tick is at 4 s
  Advance(absl::Seconds(2));
  kit_.ExpectNoMsg();
  Advance(absl::Seconds(1));
  kit_.ExpectMsg<std::string>("tick:new");
  kit_.ExpectNoMsg();
}

TEST_F(TimersTest, CancelAllCancelsEveryTimerAndItsQueuedMessages) {
  Send(StartSingle{"a", "a", absl::Seconds(1)});
  Send(StartAtFixedRate{"b", "b", absl::Seconds(1)});
  Send(StartSingle{"c", "c", absl::Seconds(5)});
  timed_.Tell(CancelAllTimers{});
  Advance(absl::Seconds(1));  // "a" and "b" queued behind CancelAll
  kit_.ExpectNoMsg();
  EXPECT_FALSE(Active("a"));
  EXPECT_FALSE(Active("b"));
  EXPECT_FALSE(Active("c"));
  Advance(absl::Seconds(10));
  kit_.ExpectNoMsg();
}

TEST_F(TimersTest, KeysAreIndependent) {
  Send(StartSingle{"a", "a", absl::Seconds(1)});
  Send(StartSingle{"b", "b", absl::Seconds(2)});
  timed_.Tell(CancelTimer{"a"});
  EXPECT_TRUE(Active("b"));
  Advance(absl::Seconds(2));
  kit_.ExpectMsg<std::string>("tick:b");
  kit_.ExpectNoMsg();
}

TEST_F(TimersTest, RestartCancelsAllTimersAndTheirQueuedMessages) {
  Send(StartAtFixedRate{"t", "before", absl::Seconds(1)});
  timed_.Tell(Fail{});
  Advance(absl::Seconds(1));  // a tick queued behind the failure
  kit_.ExpectNoMsg();         // the restart dropped it
  EXPECT_FALSE(Active("t"));
  Advance(absl::Seconds(5));
  kit_.ExpectNoMsg();
  // The new instance's timers work (generations went on counting).
  Send(StartSingle{"t", "after", absl::Seconds(1)});
  Advance(absl::Seconds(1));
  kit_.ExpectMsg<std::string>("tick:after");
}

// Akka's TimerSpec ("cancel timers when restarted"): the timers are
// cancelled before PreRestart and PostStop run, so neither hook sees a
// live timer (nor can a tick slip in between).
class ReportsTimersInHooks final : public Actor {
 public:
  explicit ReportsTimersInHooks(ActorRef observer)
      : observer_(std::move(observer)) {
    Receive<StartAtFixedRate>([this](const StartAtFixedRate& m) {
      Timers().StartTimerAtFixedRate(m.key, Tick{m.tick}, m.interval);
    });
    Receive<Fail>(
        [](const Fail&) -> void { throw std::runtime_error("told to fail"); });
  }
  void PreRestart(const std::exception_ptr&, const AnyMessage&) override {
    observer_.Tell(std::string("prerestart:") + Active());
  }
  void PostStop() override {
    observer_.Tell(std::string("poststop:") + Active());
  }

 private:
  const char* Active() {
    return Timers().IsTimerActive("t") ? "active" : "inactive";
  }
  ActorRef observer_;
};

TEST(TimersHookTest, NoTimerIsActiveInPreRestartOrPostStop) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef actor =
      kit.Sys().ActorOf(Props::Create<ReportsTimersInHooks>(kit.TestActor()));
  actor.Tell(StartAtFixedRate{"t", "rate", absl::Seconds(1)});
  actor.Tell(Fail{});
  kit.ExpectMsg<std::string>("prerestart:inactive");
  actor.Tell(StartAtFixedRate{"t", "rate", absl::Seconds(1)});
  kit.DispatchAll();
  kit.Sys().Stop(actor);
  kit.ExpectMsg<std::string>("poststop:inactive");
}

TEST_F(TimersTest, StopCancelsAllTimers) {
  auto dead = kit_.CreateTestProbe();
  kit_.Sys().EventStream().Subscribe<DeadLetter>(dead->Ref());
  Send(StartAtFixedRate{"t", "rate", absl::Seconds(1)});
  Advance(absl::Seconds(1));
  kit_.ExpectMsg<std::string>("tick:rate");
  kit_.Watch(timed_);
  kit_.Sys().Stop(timed_);
  kit_.ExpectTerminated(timed_);
  // A timer still running would send to the dead actor: a dead letter.
  Advance(absl::Seconds(5));
  dead->ExpectNoMsg();
}

TEST_F(TimersTest, FixedDelayWaitsForTheActorFixedRateDoesNot) {
  Send(StartWithFixedDelay{"delay", "delay", absl::Seconds(1)});
  Send(StartAtFixedRate{"rate", "rate", absl::Seconds(1)});
  // Three seconds pass without the actor running: the fixed-rate timer
  // sends three ticks, the fixed-delay one a single tick, re-armed only
  // when the actor takes it.
  Advance(absl::Seconds(1));
  Advance(absl::Seconds(1));
  Advance(absl::Seconds(1));
  std::vector<AnyMessage> got = kit_.ReceiveN(4);
  int delay = 0;
  int rate = 0;
  for (const AnyMessage& m : got) {
    const std::string& s = *m.As<std::string>();
    (s == "tick:delay" ? delay : rate) += 1;
  }
  EXPECT_EQ(delay, 1);
  EXPECT_EQ(rate, 3);
  kit_.ExpectNoMsg();
  // The next fixed-delay tick is a full delay after the actor took the
  // last one.
  Advance(absl::Milliseconds(999));
  kit_.ExpectNoMsg();
  Advance(absl::Milliseconds(1));
  kit_.ExpectMsgAllOf<std::string>({"tick:delay", "tick:rate"});
}

TEST_F(TimersTest, AStashedTimerMessageIsHandledAfterUnstashing) {
  Send(Close{});
  Send(StartSingle{"t", "stashed", absl::Seconds(1)});
  Advance(absl::Seconds(1));
  kit_.ExpectNoMsg();  // stashed
  // Taken from the mailbox, the timer is done: the stash holds the tick
  // itself, which is handled when let out.
  EXPECT_FALSE(Active("t"));
  timed_.Tell(Open{});
  kit_.ExpectMsg<std::string>("tick:stashed");
}

TEST(TimersPriorityTest, APriorityMailboxRanksATimersMessageAsItself) {
  TestKit kit(TestKit::Deterministic{});
  ActorRef timed = kit.Sys().ActorOf(
      Props::Create<Timed>(kit.TestActor())
          .WithPriorityMailbox([](const AnyMessage& m) {
            const Tick* t = m.As<Tick>();
            return t != nullptr && t->name == "urgent" ? 0 : 1;
          }));
  timed.Tell(StartSingle{"t", "urgent", absl::Seconds(1)});
  kit.DispatchAll();
  timed.Tell(IsActive{"other"});              // queued first, ranked 1
  kit.TestClock().Advance(absl::Seconds(1));  // the tick, ranked 0
  kit.ExpectMsg<std::string>("tick:urgent");
  EXPECT_FALSE(kit.ExpectMsg<bool>());
}

TEST(TimerKeyTest, MatchesOnTypeAndValue) {
  EXPECT_EQ(TimerKey("tick"), TimerKey(std::string("tick")));
  EXPECT_EQ(TimerKey(std::string_view("tick")), TimerKey("tick"));
  EXPECT_NE(TimerKey("tick"), TimerKey("tock"));
  EXPECT_EQ(TimerKey(1), TimerKey(1));
  EXPECT_NE(TimerKey(1), TimerKey(2));
  EXPECT_NE(TimerKey(1), TimerKey(1L));  // different types never match
  enum class Key { kA, kB };
  EXPECT_EQ(TimerKey(Key::kA), TimerKey(Key::kA));
  EXPECT_NE(TimerKey(Key::kA), TimerKey(Key::kB));
  const TimerKey copy = TimerKey(Key::kB);
  EXPECT_EQ(copy, TimerKey(Key::kB));
}

}  // namespace
}  // namespace cairn::actor
