#ifndef CAIRN_ACTOR_TESTKIT_TEST_PROBE_H_
#define CAIRN_ACTOR_TESTKIT_TEST_PROBE_H_

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/any_message.h"
#include "actor/messages.h"
#include "base/mutex.h"

namespace cairn::actor::testkit {

// What a failed expectation throws. GoogleTest reports it as a failure of
// the test with this message; other frameworks do likewise with exceptions.
class TestKitAssertion : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Default time to wait in Expect* calls.
inline constexpr absl::Duration kDefaultExpectTimeout = absl::Seconds(3);
// Default bound on the turns of one DispatchAll in the deterministic mode.
inline constexpr int kDefaultMaxTurns = 100'000;

namespace internal {
class ProbeRef;
}
}  // namespace cairn::actor::testkit

namespace cairn::actor::internal {
class CallingThreadRunner;
}  // namespace cairn::actor::internal

namespace cairn::actor::testkit {

// An actor reference backed by a queue that a test reads: send it messages,
// then expect them, in order.
//
// In the deterministic mode (the system's default dispatcher is the
// calling-thread one, see TestKit), every wait first runs the system's
// queue until nothing is runnable (DispatchAll) and then looks once: an
// Expect* with nothing there fails at once, ExpectNoMsg(d) passes at once,
// whatever the durations given. Timers are not advanced: Advance the
// ManualClock first.
//
// Thread safety: messages arrive from any thread; Expect*, Reply and
// LastSender are for one test thread.
class TestProbe {
 public:
  explicit TestProbe(ActorSystem& system, std::string name = "");
  ~TestProbe();
  TestProbe(const TestProbe&) = delete;
  TestProbe& operator=(const TestProbe&) = delete;

  ActorRef Ref() const;

  // The next message, which must be a T within `timeout`; returns it.
  template <typename T>
  T ExpectMsg(absl::Duration timeout = kDefaultExpectTimeout) {
    return ExpectMsg<T>([](const T&) { return true; }, "", timeout);
  }
  // The next message must equal `expected`.
  template <typename T>
  T ExpectMsg(const T& expected,
              absl::Duration timeout = kDefaultExpectTimeout) {
    return ExpectMsg<T>([&](const T& m) { return m == expected; },
                        "equal to the expected value", timeout);
  }
  // The next message must be a T for which `predicate` holds.
  template <typename T, typename P>
  T ExpectMsg(P predicate, std::string description,
              absl::Duration timeout = kDefaultExpectTimeout) {
    AnyMessage m = ReceiveOne(timeout, DemangledTypeName(typeid(T)));
    const T* value = m.As<T>();
    if (value == nullptr) {
      throw TestKitAssertion(absl::StrCat("expected a message of type ",
                                          DemangledTypeName(typeid(T)),
                                          " but got ", m.TypeName()));
    }
    if (!predicate(*value)) {
      throw TestKitAssertion(
          absl::StrCat("message of type ", m.TypeName(), " is not ",
                       description.empty() ? "as expected" : description));
    }
    return *value;
  }
  // The next message, of any type.
  AnyMessage ReceiveOne(absl::Duration timeout = kDefaultExpectTimeout,
                        const std::string& what = "a message");
  // The next `n` messages, of any type, within `timeout` in all.
  std::vector<AnyMessage> ReceiveN(
      size_t n, absl::Duration timeout = kDefaultExpectTimeout);

  // Fails if any message arrives within `duration` (which it waits out;
  // in the deterministic mode: if any is there after DispatchAll).
  void ExpectNoMsg(absl::Duration duration = absl::Milliseconds(100));

  // The next message must equal one of `candidates`; returns it.
  template <typename T>
  T ExpectMsgAnyOf(const std::vector<T>& candidates,
                   absl::Duration timeout = kDefaultExpectTimeout) {
    return ExpectMsg<T>(
        [&](const T& m) {
          return std::find(candidates.begin(), candidates.end(), m) !=
                 candidates.end();
        },
        "one of the candidates", timeout);
  }
  // The next expected.size() messages must be Ts equal to the elements of
  // `expected`, in any order, within `timeout` in all. Returns them in the
  // order received.
  template <typename T>
  std::vector<T> ExpectMsgAllOf(
      std::vector<T> expected, absl::Duration timeout = kDefaultExpectTimeout) {
    const absl::Time deadline = absl::Now() + timeout;
    std::vector<T> received;
    while (!expected.empty()) {
      const T m =
          ExpectMsg<T>(std::max(deadline - absl::Now(), absl::ZeroDuration()));
      auto it = std::find(expected.begin(), expected.end(), m);
      if (it == expected.end()) {
        throw TestKitAssertion(absl::StrCat(
            "ExpectMsgAllOf: a message of type ", DemangledTypeName(typeid(T)),
            " that is none of the ", expected.size(), " still expected"));
      }
      expected.erase(it);
      received.push_back(m);
    }
    return received;
  }

  // Receives messages until one is a T for which `fish(const T&)` returns
  // true, and returns it; the messages before it (of other types, or for
  // which it returned false) are dropped. Fails after `timeout` in all,
  // with `hint` in the message.
  template <typename T, typename F>
  T FishForMessage(F fish, absl::Duration timeout = kDefaultExpectTimeout,
                   const std::string& hint = "") {
    AnyMessage found = FishForAny(
        [&fish](const AnyMessage& m) {
          const T* value = m.As<T>();
          return value != nullptr && fish(*value);
        },
        timeout, hint.empty() ? DemangledTypeName(typeid(T)) : hint);
    return *found.As<T>();
  }
  AnyMessage FishForAny(const std::function<bool(const AnyMessage&)>& fish,
                        absl::Duration timeout = kDefaultExpectTimeout,
                        const std::string& hint = "a message");

  // Runs `block`, which must take at most `max` of real time (and at least
  // `min`). Inside it, every wait of this probe (Expect*, Receive*,
  // ExpectNoMsg) ends by the deadline, whatever timeout it was given. May
  // nest; an inner block cannot outlast the outer one.
  void Within(absl::Duration max, const std::function<void()>& block);
  void Within(absl::Duration min, absl::Duration max,
              const std::function<void()>& block);
  // The time left in the innermost Within; `fallback` outside one.
  absl::Duration RemainingOr(absl::Duration fallback) const;

  // Drops, as they arrive, the messages for which `ignore` holds (Akka's
  // ignoreMsg); IgnoreNoMessages ends that. `ignore` runs on the sender's
  // thread and must not block.
  void IgnoreMessages(std::function<bool(const AnyMessage&)> ignore);
  template <typename T>
  void IgnoreMessages() {
    IgnoreMessages([](const AnyMessage& m) { return m.As<T>() != nullptr; });
  }
  void IgnoreNoMessages();

  // Akka's AutoPilot: called with each message as it arrives (on the
  // sender's thread, one message at a time, before the message is queued
  // for Expect*), typically to reply so that the code under test can go
  // on. Returns true to stay for the next message, false to stop.
  using AutoPilot =
      std::function<bool(const ActorRef& sender, const AnyMessage& message)>;
  void SetAutoPilot(AutoPilot pilot);

  // Watches `subject` (Terminated will arrive here). Returns it.
  ActorRef Watch(const ActorRef& subject);
  ActorRef Unwatch(const ActorRef& subject);
  // The next message must be Terminated for `subject`.
  Terminated ExpectTerminated(const ActorRef& subject,
                              absl::Duration timeout = kDefaultExpectTimeout);

  // The sender of the last message received.
  ActorRef LastSender() const;
  // Sends `message` to LastSender(), from this probe.
  template <typename T>
  void Reply(T message) {
    LastSender().Tell(std::move(message), Ref());
  }
  // Sends `message` to `target` from this probe.
  template <typename T>
  void Send(const ActorRef& target, T message) {
    target.Tell(std::move(message), Ref());
  }
  // Forwards the last message received to `target`, keeping its sender.
  void Forward(const ActorRef& target);

  // Messages waiting to be expected.
  size_t PendingCount() const;

  // True in the deterministic mode (see above).
  bool IsDeterministic() const { return driver_ != nullptr; }
  // The bound on DispatchAll's turns before a wait (kDefaultMaxTurns).
  void SetMaxTurns(int max_turns) { max_turns_ = max_turns; }

 private:
  friend class internal::ProbeRef;
  struct Received {
    AnyMessage message;
    ActorRef sender;
  };
  void Push(AnyMessage message, ActorRef sender);
  // `timeout`, cut to the time left in the innermost Within.
  absl::Duration Bounded(absl::Duration timeout) const;
  // Deterministic mode: runs the queue until nothing is runnable.
  void Drive();

  internal::ProbeRef* ref_;  // holds a reference
  // The system's calling-thread queue in the deterministic mode, else null.
  actor::internal::CallingThreadRunner* const driver_;
  int max_turns_ = kDefaultMaxTurns;
  mutable base::Mutex mu_;
  base::CondVar cv_;
  std::deque<Received> queue_ ABSL_GUARDED_BY(mu_);
  Received last_;  // test thread
  std::function<bool(const AnyMessage&)> ignore_ ABSL_GUARDED_BY(mu_);
  // The autopilot runs under its own lock, never under mu_.
  base::Mutex pilot_mu_;
  AutoPilot pilot_ ABSL_GUARDED_BY(pilot_mu_);
  std::vector<absl::Time> deadlines_;  // of the Within blocks; test thread
};

}  // namespace cairn::actor::testkit

#endif  // CAIRN_ACTOR_TESTKIT_TEST_PROBE_H_
