#ifndef CAIRN_ACTOR_ROUTING_FIRST_COMPLETED_H_
#define CAIRN_ACTOR_ROUTING_FIRST_COMPLETED_H_

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "actor/routing/routing_logic.h"
#include "base/mutex.h"

namespace cairn::actor::routing {

// Logics whose sender gets the first reply of several routees. For each
// message the router actor makes a short-lived child that sends the
// message to the routees (with itself as their sender), passes the first
// reply on to the original sender (from the routee that replied) and
// stops; later replies go to dead letters. When no reply has come within
// `within` (on the scheduler's clock), the sender gets StatusFailure with
// AskTimeoutException, as Akka's ask-based routers answer. With no
// routees at all the sender gets that failure at once, from the router
// (Akka's "Timeout due to no routees"). Only inside a router actor
// (Router::Route with its context).

// Sends each message to every routee at once (Akka's
// ScatterGatherFirstCompletedRoutingLogic).
class ScatterGatherFirstCompletedRoutingLogic final : public RoutingLogic {
 public:
  explicit ScatterGatherFirstCompletedRoutingLogic(absl::Duration within)
      : within_(within) {}
  std::vector<size_t> Select(const AnyMessage& message,
                             const std::vector<Routee>& routees) override;
  bool Route(const AnyMessage& message, const ActorRef& sender,
             const std::vector<Routee>& routees,
             ActorContext* context) override;
  bool RouteWithoutRoutees(const AnyMessage& message, const ActorRef& sender,
                           ActorContext* context) override;

 private:
  const absl::Duration within_;
};

// Sends each message to one routee, then, every `interval` without a reply,
// to one more, in a random order (Akka's TailChoppingRoutingLogic). The
// seed is the seam for tests.
class TailChoppingRoutingLogic final : public RoutingLogic {
 public:
  TailChoppingRoutingLogic(absl::Duration within, absl::Duration interval,
                           std::optional<uint64_t> seed = std::nullopt);
  std::vector<size_t> Select(const AnyMessage& message,
                             const std::vector<Routee>& routees) override;
  bool Route(const AnyMessage& message, const ActorRef& sender,
             const std::vector<Routee>& routees,
             ActorContext* context) override;
  bool RouteWithoutRoutees(const AnyMessage& message, const ActorRef& sender,
                           ActorContext* context) override;

 private:
  const absl::Duration within_;
  const absl::Duration interval_;
  base::Mutex mu_;
  std::mt19937_64 random_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::actor::routing

#endif  // CAIRN_ACTOR_ROUTING_FIRST_COMPLETED_H_
