#include "actor/routing/first_completed.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/messages.h"
#include "base/mutex.h"

namespace cairn::actor::routing {
namespace {

// The collector's own timer messages (no routee can send these).
struct SendNext {};
struct GiveUp {};

// Sends one message to `order`'s routees (all at once for a zero
// interval, else one now and one more every interval) and passes on the
// first reply.
class FirstReplyCollector final : public Actor {
 public:
  FirstReplyCollector(AnyMessage message, ActorRef reply_to,
                      std::vector<Routee> order, absl::Duration within,
                      absl::Duration interval)
      : message_(std::move(message)),
        reply_to_(std::move(reply_to)),
        order_(std::move(order)),
        within_(within),
        interval_(interval) {
    Receive<SendNext>([this](const SendNext&) { SendToNext(); });
    Receive<GiveUp>([this](const GiveUp&) {
      reply_to_.Tell(
          StatusFailure{
              std::make_exception_ptr(AskTimeoutException(absl::StrCat(
                  "no routee of ", Parent().Path().ToString(),
                  " replied within ", absl::FormatDuration(within_))))},
          Parent());
      Context().Stop(Self());
    });
    ReceiveAny([this](const AnyMessage& reply) {
      reply_to_.TellAny(reply, Sender());
      Context().Stop(Self());
    });
  }

  void PreStart() override {
    Scheduler& scheduler = Context().System().Scheduler();
    give_up_ = scheduler.ScheduleTellOnce(within_, Self(), GiveUp{});
    if (interval_ <= absl::ZeroDuration()) {
      while (next_ < order_.size()) SendToNext();
      return;
    }
    SendToNext();
    if (next_ < order_.size()) {
      tick_ = scheduler.ScheduleTellRepeatedly(interval_, interval_, Self(),
                                               SendNext{});
    }
  }
  void PostStop() override {
    give_up_.Cancel();
    tick_.Cancel();
  }

 private:
  void SendToNext() {
    if (next_ < order_.size()) order_[next_++].Send(message_, Self());
    if (next_ == order_.size()) tick_.Cancel();
  }

  const AnyMessage message_;
  const ActorRef reply_to_;
  const std::vector<Routee> order_;
  const absl::Duration within_;
  const absl::Duration interval_;
  size_t next_ = 0;
  Cancellable give_up_;
  Cancellable tick_;
};

bool StartCollector(const AnyMessage& message, const ActorRef& sender,
                    std::vector<Routee> order, absl::Duration within,
                    absl::Duration interval, ActorContext* context,
                    const char* logic) {
  if (context == nullptr) {
    throw std::logic_error(absl::StrCat(
        logic, " routes only inside a router actor (it makes a child)"));
  }
  if (order.empty()) return false;
  context->ActorOf(
      Props::Create([message, sender, order = std::move(order), within,
                     interval]() -> std::unique_ptr<Actor> {
        return std::make_unique<FirstReplyCollector>(message, sender, order,
                                                     within, interval);
      }));
  return true;
}

// With no routees nothing could answer before `within`: the sender is
// failed at once, from the router.
bool FailForNoRoutees(const ActorRef& sender, ActorContext* context,
                      const char* logic) {
  sender.Tell(StatusFailure{std::make_exception_ptr(AskTimeoutException(
                  absl::StrCat(logic, ": no routees to send to")))},
              context != nullptr ? context->Self() : ActorRef::NoSender());
  return true;
}

}  // namespace

std::vector<size_t> ScatterGatherFirstCompletedRoutingLogic::Select(
    const AnyMessage&, const std::vector<Routee>& routees) {
  std::vector<size_t> all(routees.size());
  std::iota(all.begin(), all.end(), size_t{0});
  return all;
}

bool ScatterGatherFirstCompletedRoutingLogic::Route(
    const AnyMessage& message, const ActorRef& sender,
    const std::vector<Routee>& routees, ActorContext* context) {
  return StartCollector(message, sender, routees, within_, absl::ZeroDuration(),
                        context, "ScatterGatherFirstCompletedRoutingLogic");
}

bool ScatterGatherFirstCompletedRoutingLogic::RouteWithoutRoutees(
    const AnyMessage&, const ActorRef& sender, ActorContext* context) {
  return FailForNoRoutees(sender, context,
                          "ScatterGatherFirstCompletedRoutingLogic");
}

TailChoppingRoutingLogic::TailChoppingRoutingLogic(absl::Duration within,
                                                   absl::Duration interval,
                                                   std::optional<uint64_t> seed)
    : within_(within),
      interval_(interval),
      random_(seed.has_value() ? *seed : std::random_device()()) {}

std::vector<size_t> TailChoppingRoutingLogic::Select(
    const AnyMessage&, const std::vector<Routee>& routees) {
  std::vector<size_t> order(routees.size());
  std::iota(order.begin(), order.end(), size_t{0});
  base::MutexLock lock(&mu_);
  std::shuffle(order.begin(), order.end(), random_);
  return order;
}

bool TailChoppingRoutingLogic::Route(const AnyMessage& message,
                                     const ActorRef& sender,
                                     const std::vector<Routee>& routees,
                                     ActorContext* context) {
  std::vector<Routee> order;
  for (size_t i : Select(message, routees)) order.push_back(routees[i]);
  // A zero interval would send to all at once; tail-chopping means at
  // least one step between sends.
  return StartCollector(message, sender, std::move(order), within_,
                        std::max(interval_, absl::Nanoseconds(1)), context,
                        "TailChoppingRoutingLogic");
}

bool TailChoppingRoutingLogic::RouteWithoutRoutees(const AnyMessage&,
                                                   const ActorRef& sender,
                                                   ActorContext* context) {
  return FailForNoRoutees(sender, context, "TailChoppingRoutingLogic");
}

}  // namespace cairn::actor::routing
