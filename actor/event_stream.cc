#include "actor/event_stream.h"

#include <algorithm>
#include <utility>

#include "base/mutex.h"

namespace cairn::actor {

bool EventStream::AddSubscription(Subscription s) {
  base::MutexLock lock(&mu_);
  for (const Subscription& existing : subscriptions_) {
    if (existing.subscriber == s.subscriber && *existing.type == *s.type) {
      return false;
    }
  }
  subscriptions_.push_back(std::move(s));
  return true;
}

int64_t EventStream::AddFunction(const std::type_info* type, Matcher matches,
                                 std::function<void(const AnyMessage&)> fn) {
  base::MutexLock lock(&mu_);
  int64_t token = next_token_++;
  subscriptions_.push_back(
      Subscription{ActorRef(), std::move(fn), type, matches, token});
  return token;
}

void EventStream::UnsubscribeFunction(int64_t token) {
  base::MutexLock lock(&mu_);
  std::erase_if(subscriptions_,
                [&](const Subscription& s) { return s.token == token; });
}

bool EventStream::RemoveSubscriptions(const ActorRef& subscriber,
                                      const std::type_info* type) {
  base::MutexLock lock(&mu_);
  size_t removed = std::erase_if(subscriptions_, [&](const Subscription& s) {
    return s.token == 0 && s.subscriber == subscriber &&
           (type == nullptr || *s.type == *type);
  });
  return removed > 0;
}

void EventStream::PublishAny(const AnyMessage& event) {
  if (event.empty()) return;
  std::vector<ActorRef> actors;
  std::vector<std::function<void(const AnyMessage&)>> functions;
  {
    base::MutexLock lock(&mu_);
    // Subscribers that stopped are dropped here, so an event never chases
    // a dead subscriber into dead letters (which would publish again).
    std::erase_if(subscriptions_, [](const Subscription& s) {
      return s.token == 0 && s.subscriber.impl()->IsTerminated();
    });
    for (const Subscription& s : subscriptions_) {
      if (!s.matches(*event.payload())) continue;
      if (s.token == 0) {
        actors.push_back(s.subscriber);
      } else {
        functions.push_back(s.function);
      }
    }
  }
  for (const ActorRef& a : actors) a.TellAny(event, ActorRef());
  for (const auto& f : functions) f(event);
}

}  // namespace cairn::actor
