#include "persistence/at_least_once_delivery.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"

namespace cairn::persistence {
namespace {

uint64_t NextTickInstance() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

AtLeastOnceDelivery::AtLeastOnceDelivery()
    : tick_instance_(NextTickInstance()) {
  const hocon::Config& config = Context().System().Settings();
  const std::string block = "akka.persistence.at-least-once-delivery.";
  // reference.conf sets every key; a wrong type in the application's
  // config is an error of the actor's start, named.
  auto check = [](const auto& value) {
    if (!value.ok()) {
      throw std::invalid_argument(std::string(value.status().message()));
    }
    return *value;
  };
  redeliver_interval_ = check(config.GetDuration(block + "redeliver-interval"));
  burst_limit_ = check(config.GetInt(block + "redelivery-burst-limit"));
  warn_after_ =
      check(config.GetInt(block + "warn-after-number-of-unconfirmed-attempts"));
  max_unconfirmed_ = check(config.GetInt(block + "max-unconfirmed-messages"));
  if (redeliver_interval_ <= absl::ZeroDuration() || burst_limit_ < 1 ||
      max_unconfirmed_ < 1) {
    throw std::invalid_argument(absl::StrCat(
        "akka.persistence.at-least-once-delivery: redeliver-interval must be "
        "positive and redelivery-burst-limit and max-unconfirmed-messages at "
        "least 1"));
  }
}

AtLeastOnceDelivery::~AtLeastOnceDelivery() = default;

absl::Time AtLeastOnceDelivery::Now() const {
  return Context().System().GetClock().Now();
}

void AtLeastOnceDelivery::DeliverAny(
    const actor::ActorRef& destination,
    const std::function<actor::AnyMessage(int64_t)>& make) {
  if (static_cast<int>(unconfirmed_.size()) >= max_unconfirmed_) {
    throw MaxUnconfirmedMessagesExceededException(absl::StrCat(
        "too many unconfirmed deliveries of ", Self().Path().ToString(), ": ",
        unconfirmed_.size(),
        " (akka.persistence.at-least-once-delivery.max-unconfirmed-messages)"));
  }
  const int64_t id = ++delivery_sequence_nr_;
  const absl::Time now = Now();
  internal::PendingDelivery d{destination, destination.Path().ToString(),
                              make(id), now, 0};
  if (IsRecovering()) {
    // Not sent now; overdue as soon as the recovery ends.
    d.sent = now - redeliver_interval_;
    unconfirmed_.emplace(id, std::move(d));
    return;
  }
  Send(unconfirmed_.emplace(id, std::move(d)).first->second, now);
}

bool AtLeastOnceDelivery::ConfirmDelivery(int64_t delivery_id) {
  return unconfirmed_.erase(delivery_id) > 0;
}

void AtLeastOnceDelivery::Send(internal::PendingDelivery& d, absl::Time now) {
  if (d.ref) {
    d.ref.TellAny(d.message, Self());
  } else {
    Context().ActorSelection(d.destination).TellAny(d.message, Self());
  }
  d.sent = now;
  ++d.attempt;
}

void AtLeastOnceDelivery::RedeliverOverdue() {
  const absl::Time now = Now();
  const absl::Time deadline = now - redeliver_interval_;
  std::vector<UnconfirmedDelivery> warnings;
  int sent = 0;
  for (auto& [id, d] : unconfirmed_) {
    if (sent >= burst_limit_) break;
    if (d.sent > deadline) continue;
    Send(d, now);
    ++sent;
    if (d.attempt == warn_after_) {
      warnings.push_back(UnconfirmedDelivery{id, d.destination, d.message});
    }
  }
  if (!warnings.empty()) Self().Tell(UnconfirmedWarning{std::move(warnings)});
}

AtLeastOnceDeliverySnapshot AtLeastOnceDelivery::GetDeliverySnapshot() const {
  AtLeastOnceDeliverySnapshot snapshot;
  snapshot.current_delivery_id = delivery_sequence_nr_;
  for (const auto& [id, d] : unconfirmed_) {
    snapshot.unconfirmed.push_back(
        UnconfirmedDelivery{id, d.destination, d.message});
  }
  return snapshot;
}

void AtLeastOnceDelivery::SetDeliverySnapshot(
    const AtLeastOnceDeliverySnapshot& snapshot) {
  delivery_sequence_nr_ = snapshot.current_delivery_id;
  unconfirmed_.clear();
  // Sent at the next redelivery (Akka's rule: the snapshot's deliveries
  // count as sent now).
  const absl::Time now = Now();
  for (const UnconfirmedDelivery& u : snapshot.unconfirmed) {
    unconfirmed_.emplace(u.delivery_id, internal::PendingDelivery{
                                            actor::ActorRef(), u.destination,
                                            u.message, now, 0});
  }
}

bool AtLeastOnceDelivery::InterceptMessage(const actor::MessageView& message) {
  const auto* tick = message.As<internal::RedeliveryTick>();
  if (tick == nullptr) return false;
  if (tick->instance == tick_instance_) RedeliverOverdue();
  return true;
}

void AtLeastOnceDelivery::OnReplaySuccess() {
  RedeliverOverdue();
  const absl::Duration half = redeliver_interval_ / 2;
  redelivery_timer_.Cancel();
  redelivery_timer_ = Context().System().Scheduler().ScheduleTellRepeatedly(
      half, half, Self(), internal::RedeliveryTick{tick_instance_});
}

void AtLeastOnceDelivery::OnIncarnationEnd() { redelivery_timer_.Cancel(); }

}  // namespace cairn::persistence
