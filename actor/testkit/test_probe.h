#ifndef CAIRN_ACTOR_TESTKIT_TEST_PROBE_H_
#define CAIRN_ACTOR_TESTKIT_TEST_PROBE_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/any_message.h"
#include "actor/messages.h"

namespace cairn::actor::testkit {

// What a failed expectation throws. GoogleTest reports it as a failure of
// the test with this message; other frameworks do likewise with exceptions.
class TestKitAssertion : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Default time to wait in Expect* calls.
inline constexpr absl::Duration kDefaultExpectTimeout = absl::Seconds(3);

namespace internal {
class ProbeRef;
}

// An actor reference backed by a queue that a test reads: send it messages,
// then expect them, in order.
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

  // Fails if any message arrives within `duration` (which it waits out).
  void ExpectNoMsg(absl::Duration duration = absl::Milliseconds(100));

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

 private:
  friend class internal::ProbeRef;
  struct Received {
    AnyMessage message;
    ActorRef sender;
  };
  void Push(AnyMessage message, ActorRef sender);

  ActorSystem& system_;
  internal::ProbeRef* ref_;  // holds a reference
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Received> queue_;
  Received last_;
};

}  // namespace cairn::actor::testkit

#endif  // CAIRN_ACTOR_TESTKIT_TEST_PROBE_H_
