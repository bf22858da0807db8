#ifndef CAIRN_ACTOR_TESTKIT_TEST_KIT_H_
#define CAIRN_ACTOR_TESTKIT_TEST_KIT_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/clock.h"
#include "actor/testkit/test_probe.h"
#include "hocon/config.h"

namespace cairn::actor::testkit {

// An actor system for a test, with a TestActor that is the implicit sender
// of every Tell made on the test's thread, so replies can be expected the
// way Akka.NET's TestKit reads:
//
//   TestKit kit;
//   ActorRef echo = kit.Sys().ActorOf(Props::Create<Echo>());
//   echo.Tell(42);
//   kit.ExpectMsg<int>(42);
//
// Pass a ManualClock to drive timers (receive timeouts, backoff,
// redelivery) with clock.Advance(d) instead of waiting.
//
// The deterministic mode (TestKit(TestKit::Deterministic{...})): the
// system's default dispatcher is the calling-thread one (config
// `akka.actor.default-dispatcher.type = CallingThreadDispatcher`, see
// actor/internal/calling_thread_dispatcher.h), so no actor runs on a thread
// of its own. Sending only queues; mailboxes wait in a FIFO, in the order
// they became runnable, and run on the test's thread when it asks:
//   - DispatchOne(): one turn of the first mailbox: its system messages
//     (create, stop, watch, Terminated, failures and supervision), then at
//     most ONE user message (throughput is 1), so interleavings are exact;
//   - DispatchAll(): turns until nothing is runnable, at most max_turns
//     (a conversation that never ends fails the test instead of hanging).
// Time is a ManualClock (the kit's own, or the one given) and timers have
// no thread: TestClock().Advance(d) sends what became due, DispatchAll runs
// it. Every Expect* (of the TestActor and of probes) runs DispatchAll first
// and then looks once, so "no message arrives" and ordering need no
// wall-clock wait: ExpectNoMsg() passes at once if nothing is there.
//   TestKit kit(TestKit::Deterministic{});
//   ActorRef a = kit.Sys().ActorOf(Props::Create<Pinger>());
//   a.Tell(Start{});
//   kit.ExpectMsg<Pong>();     // runs everything, then looks
//   kit.ExpectNoMsg();         // nothing more, at once
// On the test's thread a blocking wait on a Future (Ask(...).get(),
// GracefulStop(...).wait(), Terminate().wait()) runs the queue until the
// future completes, and throws std::logic_error when nothing is left to
// run first (with a ManualClock an ask's timeout fires only on Advance).
// Inside an actor a blocking wait throws (the actor fails). Not supported
// in the mode: actors on other dispatchers (pinned, thread pools) sharing
// the system mix real threads back in, and persistence journals that run
// their own threads make the order depend on them again. The destructor
// terminates the system, running the stop sequence on this thread, with
// actors alive or not.
//
// Thread safety: one test thread (the one that constructs it).
class TestKit {
 public:
  // The options of the deterministic mode.
  struct Deterministic {
    // The application config; the mode's dispatcher setting goes over it.
    hocon::Config config = TestConfig();
    // Null: the kit makes its own, at the Unix epoch.
    ManualClock* clock = nullptr;
    std::string name = "test";
    // The bound on one DispatchAll (and on each Expect*'s).
    int max_turns = kDefaultMaxTurns;
  };
  explicit TestKit(Deterministic options);
  explicit TestKit(const hocon::Config& config = TestConfig(),
                   Clock* clock = nullptr, std::string name = "test");
  explicit TestKit(std::string_view hocon_text, Clock* clock = nullptr);
  ~TestKit();  // terminates the system and waits
  TestKit(const TestKit&) = delete;
  TestKit& operator=(const TestKit&) = delete;

  // Quiet logging (WARNING and up) for tests.
  static hocon::Config TestConfig();

  // The deterministic mode (see above) only. DispatchOne runs one turn
  // (false if nothing was runnable); DispatchAll runs until nothing is,
  // returning the turns run, and throws TestKitAssertion past max_turns.
  // TestClock is the mode's ManualClock. Outside the mode they throw.
  bool IsDeterministic() const { return queue_ != nullptr; }
  bool DispatchOne();
  int DispatchAll();
  ManualClock& TestClock();

  ActorSystem& Sys() { return *system_; }
  ActorRef TestActor() const { return test_actor_->Ref(); }
  TestProbe& TestActorProbe() { return *test_actor_; }
  std::unique_ptr<TestProbe> CreateTestProbe(std::string name = "") {
    return std::make_unique<TestProbe>(*system_, std::move(name));
  }

  template <typename T>
  T ExpectMsg(absl::Duration timeout = kDefaultExpectTimeout) {
    return test_actor_->ExpectMsg<T>(timeout);
  }
  template <typename T>
  T ExpectMsg(const T& expected,
              absl::Duration timeout = kDefaultExpectTimeout) {
    return test_actor_->ExpectMsg<T>(expected, timeout);
  }
  template <typename T, typename P>
  T ExpectMsg(P predicate, std::string description,
              absl::Duration timeout = kDefaultExpectTimeout) {
    return test_actor_->ExpectMsg<T>(std::move(predicate),
                                     std::move(description), timeout);
  }
  void ExpectNoMsg(absl::Duration d = absl::Milliseconds(100)) {
    test_actor_->ExpectNoMsg(d);
  }
  ActorRef Watch(const ActorRef& a) { return test_actor_->Watch(a); }
  ActorRef Unwatch(const ActorRef& a) { return test_actor_->Unwatch(a); }
  Terminated ExpectTerminated(const ActorRef& a,
                              absl::Duration t = kDefaultExpectTimeout) {
    return test_actor_->ExpectTerminated(a, t);
  }
  ActorRef LastSender() const { return test_actor_->LastSender(); }
  template <typename T>
  void Reply(T message) {
    test_actor_->Reply(std::move(message));
  }

  // The TestActor's vocabulary of TestProbe (see there): ReceiveN,
  // ExpectMsgAnyOf, ExpectMsgAllOf, FishForMessage, Within,
  // IgnoreMessages, SetAutoPilot.
  std::vector<AnyMessage> ReceiveN(
      size_t n, absl::Duration timeout = kDefaultExpectTimeout) {
    return test_actor_->ReceiveN(n, timeout);
  }
  template <typename T>
  T ExpectMsgAnyOf(const std::vector<T>& candidates,
                   absl::Duration timeout = kDefaultExpectTimeout) {
    return test_actor_->ExpectMsgAnyOf<T>(candidates, timeout);
  }
  template <typename T>
  std::vector<T> ExpectMsgAllOf(
      std::vector<T> expected, absl::Duration timeout = kDefaultExpectTimeout) {
    return test_actor_->ExpectMsgAllOf<T>(std::move(expected), timeout);
  }
  template <typename T, typename F>
  T FishForMessage(F fish, absl::Duration timeout = kDefaultExpectTimeout,
                   const std::string& hint = "") {
    return test_actor_->FishForMessage<T>(std::move(fish), timeout, hint);
  }
  void Within(absl::Duration max, const std::function<void()>& block) {
    test_actor_->Within(max, block);
  }
  void Within(absl::Duration min, absl::Duration max,
              const std::function<void()>& block) {
    test_actor_->Within(min, max, block);
  }
  template <typename T>
  void IgnoreMessages() {
    test_actor_->IgnoreMessages<T>();
  }
  void IgnoreMessages(std::function<bool(const AnyMessage&)> ignore) {
    test_actor_->IgnoreMessages(std::move(ignore));
  }
  void IgnoreNoMessages() { test_actor_->IgnoreNoMessages(); }
  void SetAutoPilot(TestProbe::AutoPilot pilot) {
    test_actor_->SetAutoPilot(std::move(pilot));
  }

  // Polls `condition` until it holds or `timeout` passes (then throws
  // TestKitAssertion with `what`). For state not observable by messages.
  // In the deterministic mode both run DispatchAll and check once.
  void AwaitCondition(const std::function<bool()>& condition,
                      absl::Duration timeout = kDefaultExpectTimeout,
                      const std::string& what = "condition");
  // Runs `assertion` until it returns without throwing, every `interval`;
  // once `timeout` has passed, rethrows the last exception (Akka's
  // awaitAssert). `assertion` signals "not yet" by throwing, e.g. a
  // TestKitAssertion.
  void AwaitAssert(const std::function<void()>& assertion,
                   absl::Duration timeout = kDefaultExpectTimeout,
                   absl::Duration interval = absl::Milliseconds(10));

 private:
  void Init(absl::StatusOr<std::unique_ptr<ActorSystem>> system);
  actor::internal::CallingThreadRunner& Queue(const char* what);

  // Before system_: the system reads it until it is destroyed.
  std::unique_ptr<ManualClock> own_clock_;
  ManualClock* manual_clock_ = nullptr;                    // the mode's
  actor::internal::CallingThreadRunner* queue_ = nullptr;  // the mode's
  int max_turns_ = kDefaultMaxTurns;
  std::unique_ptr<ActorSystem> system_;
  std::unique_ptr<TestProbe> test_actor_;
  actor::internal::ActorRefImpl* previous_self_ = nullptr;
};

}  // namespace cairn::actor::testkit

#endif  // CAIRN_ACTOR_TESTKIT_TEST_KIT_H_
