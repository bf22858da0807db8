#ifndef CAIRN_ACTOR_TESTKIT_EVENT_FILTER_H_
#define CAIRN_ACTOR_TESTKIT_EVENT_FILTER_H_

#include <functional>
#include <string>
#include <typeinfo>

#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/any_message.h"
#include "actor/logging.h"
#include "actor/messages.h"
#include "actor/testkit/test_probe.h"

namespace cairn::actor::testkit {

// Akka's EventFilter: expects a number of log events, or dead letters, of
// a kind while a block of test code runs:
//
//   EventFilter::Exception<std::runtime_error>("boom")
//       .ExpectOne(kit.Sys(), [&] { actor.Tell(Crash{}); });
//   EventFilter::DeadLetter<std::string>().Expect(kit.Sys(), 2, [&] {
//     stopped.Tell(std::string("a"));
//     stopped.Tell(std::string("b"));
//   });
//
// It counts the matching events published on the system's event stream
// from the start of the block until `n` have come (waiting up to the
// timeout after the block) and fails with TestKitAssertion if fewer came,
// or more than `n` had come by then. Log events below akka.loglevel are
// never published, so they cannot be expected. Unlike Akka's, matched
// events are still printed by the logger.
//
// Thread safety: a filter is a value; Expect is for the test's thread.
class EventFilter {
 public:
  // Log events of a level whose message contains `contains`.
  static EventFilter Error(std::string contains = "");
  static EventFilter Warning(std::string contains = "");
  static EventFilter Info(std::string contains = "");
  static EventFilter Debug(std::string contains = "");
  // An error logged for an exception of type E (the supervisor's "... failed
  // (Restart): E: what"), whose message contains `contains`.
  template <typename E>
  static EventFilter Exception(std::string contains = "") {
    EventFilter f = Error(std::move(contains));
    f.exception_ = DemangledTypeName(typeid(E)) + ": ";
    return f;
  }
  // Dead letters whose message is a T (or derives from a polymorphic T).
  template <typename T>
  static EventFilter DeadLetter() {
    EventFilter f;
    f.dead_letter_ = [](const AnyMessage& m) { return m.As<T>() != nullptr; };
    f.what_ = "dead letter of type " + DemangledTypeName(typeid(T));
    return f;
  }

  // Only events whose source (usually an actor path) contains `source`.
  EventFilter& From(std::string source);

  // Runs `block`, then waits up to `timeout` for `n` matching events (in
  // the TestKit's deterministic mode: runs every mailbox, then counts).
  void Expect(ActorSystem& system, int n, const std::function<void()>& block,
              absl::Duration timeout = kDefaultExpectTimeout) const;
  void ExpectOne(ActorSystem& system, const std::function<void()>& block,
                 absl::Duration timeout = kDefaultExpectTimeout) const {
    Expect(system, 1, block, timeout);
  }

 private:
  EventFilter() = default;
  static EventFilter Log(LogLevel level, std::string contains);
  bool MatchesLog(const LogEvent& event) const;

  LogLevel level_ = LogLevel::kError;
  std::string contains_;
  std::string exception_;  // the "Type: " an exception's log must hold
  std::string source_;
  // Set for a dead-letter filter.
  std::function<bool(const AnyMessage&)> dead_letter_;
  std::string what_;  // for messages
};

}  // namespace cairn::actor::testkit

#endif  // CAIRN_ACTOR_TESTKIT_EVENT_FILTER_H_
