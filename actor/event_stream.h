#ifndef CAIRN_ACTOR_EVENT_STREAM_H_
#define CAIRN_ACTOR_EVENT_STREAM_H_

#include <cstdint>
#include <functional>
#include <typeinfo>
#include <vector>

#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "actor/internal/type_match.h"
#include "base/mutex.h"

namespace cairn::actor {

// Publish-subscribe by message type within one actor system: dead letters,
// unhandled messages and log events are published here, and users publish
// their own. A subscription to T receives events of type T and, when T is a
// polymorphic class, of types derived from it.
//
// Thread safety: every method from any thread. Events reach each subscriber
// in the order they were published from one thread.
class EventStream {
 public:
  EventStream() = default;
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  // False if `subscriber` already had that subscription.
  template <typename T>
  bool Subscribe(const ActorRef& subscriber) {
    return AddSubscription(
        Subscription{subscriber, nullptr, &typeid(T), &Matches<T>, 0});
  }
  template <typename T>
  bool Unsubscribe(const ActorRef& subscriber) {
    return RemoveSubscriptions(subscriber, &typeid(T));
  }
  // Removes every subscription of `subscriber`.
  void Unsubscribe(const ActorRef& subscriber) {
    RemoveSubscriptions(subscriber, nullptr);
  }

  // A function subscriber (e.g. a logger), called on the publishing thread;
  // it must be quick and must not throw. Returns a token for
  // UnsubscribeFunction.
  template <typename T>
  int64_t SubscribeFunction(std::function<void(const T&)> fn) {
    return AddFunction(
        &typeid(T), &Matches<T>,
        [fn = std::move(fn)](const AnyMessage& m) { fn(*m.As<T>()); });
  }
  void UnsubscribeFunction(int64_t token);

  template <typename T>
  void Publish(T event) {
    PublishAny(AnyMessage::Of(std::move(event)));
  }
  void PublishAny(const AnyMessage& event);

 private:
  using Matcher = bool (*)(const internal::Payload&);
  struct Subscription {
    ActorRef subscriber;                              // or
    std::function<void(const AnyMessage&)> function;  // a function subscriber
    const std::type_info* type;
    Matcher matches;
    int64_t token;
  };

  template <typename T>
  static bool Matches(const internal::Payload& p) {
    return internal::PayloadAs<T>(p) != nullptr;
  }

  bool AddSubscription(Subscription s);
  int64_t AddFunction(const std::type_info* type, Matcher matches,
                      std::function<void(const AnyMessage&)> fn);
  bool RemoveSubscriptions(const ActorRef& subscriber,
                           const std::type_info* type);

  base::Mutex mu_;
  std::vector<Subscription> subscriptions_ ABSL_GUARDED_BY(mu_);
  int64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_EVENT_STREAM_H_
