#ifndef CAIRN_PERSISTENCE_AT_LEAST_ONCE_DELIVERY_H_
#define CAIRN_PERSISTENCE_AT_LEAST_ONCE_DELIVERY_H_

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "actor/scheduler.h"
#include "persistence/persistent_actor.h"

namespace cairn::persistence {

namespace internal {
// Outside the class so the names never hide a user's types.
struct PendingDelivery {
  actor::ActorRef ref;      // NoSender after SetDeliverySnapshot
  std::string destination;  // path
  actor::AnyMessage message;
  absl::Time sent;
  int attempt = 0;
};
struct RedeliveryTick {
  uint64_t instance;
};
}  // namespace internal

// A delivery not confirmed yet: what GetDeliverySnapshot saves and
// UnconfirmedWarning reports.
struct UnconfirmedDelivery {
  int64_t delivery_id = 0;
  // The destination's path (`akka://system/user/a`), so that a snapshot
  // names it across incarnations of the process.
  std::string destination;
  actor::AnyMessage message;
};

// The state to keep in a snapshot, so that deliveries survive without
// replaying the events that made them.
struct AtLeastOnceDeliverySnapshot {
  int64_t current_delivery_id = 0;
  std::vector<UnconfirmedDelivery> unconfirmed;
};

// Sent to the actor itself when deliveries have been sent
// `warn-after-number-of-unconfirmed-attempts` times without a
// confirmation. Handle it as a command.
struct UnconfirmedWarning {
  std::vector<UnconfirmedDelivery> unconfirmed;
};

// Thrown by Deliver when `max-unconfirmed-messages` deliveries are
// unconfirmed already: the caller must slow down (Akka's
// MaxUnconfirmedMessagesExceededException).
class MaxUnconfirmedMessagesExceededException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A PersistentActor that sends messages at least once (Akka's
// AtLeastOnceDelivery): Deliver sends a message made for a delivery id and
// sends it again every `redeliver-interval` until ConfirmDelivery(id) is
// called, typically from the handler of the persisted event that records
// the destination's acknowledgement. Deliver and ConfirmDelivery are meant
// to be called from event handlers, so that replay rebuilds the set of
// unconfirmed deliveries; during recovery nothing is sent, and deliveries
// still unconfirmed at its end go out right after it.
//
//   Command<Send>([this](const Send& s) {
//     Persist(MsgSent{s.text}, [this](const MsgSent& e) { Apply(e); });
//   });
//   Command<Confirm>([this](const Confirm& c) {
//     Persist(MsgConfirmed{c.delivery_id}, [this](const MsgConfirmed& e) {
//       ConfirmDelivery(e.delivery_id);
//     });
//   });
//   Recover<MsgSent>([this](const MsgSent& e) { Apply(e); });
//   void Apply(const MsgSent& e) {
//     Deliver(destination_, [&](int64_t id) { return Msg{id, e.text}; });
//   }
//
// Settings (akka.persistence.at-least-once-delivery): redeliver-interval,
// redelivery-burst-limit (deliveries resent per tick at most),
// warn-after-number-of-unconfirmed-attempts, max-unconfirmed-messages.
// The redelivery timer runs at half the interval, is started after
// recovery and cancelled when the incarnation stops or restarts.
//
// Thread safety: as any Actor.
class AtLeastOnceDelivery : public PersistentActor {
 public:
  ~AtLeastOnceDelivery() override;

  int NumberOfUnconfirmed() const {
    return static_cast<int>(unconfirmed_.size());
  }

 protected:
  AtLeastOnceDelivery();

  // Sends make(delivery_id) to `destination` (from Self()), the ids being
  // 1, 2, 3, ... with no gaps, and keeps sending it until confirmed. T is
  // what `make` returns. Throws MaxUnconfirmedMessagesExceededException
  // when the limit is reached (nothing is then sent or numbered).
  template <typename F>
  void Deliver(const actor::ActorRef& destination, F&& make) {
    DeliverAny(destination,
               [&](int64_t id) { return actor::AnyMessage::Of(make(id)); });
  }
  void DeliverAny(const actor::ActorRef& destination,
                  const std::function<actor::AnyMessage(int64_t)>& make);

  // Stops the redelivery of `delivery_id`; whether it was unconfirmed.
  bool ConfirmDelivery(int64_t delivery_id);

  AtLeastOnceDeliverySnapshot GetDeliverySnapshot() const;
  // Replaces the deliveries (e.g. from a SnapshotOffer); they are sent at
  // the next redelivery.
  void SetDeliverySnapshot(const AtLeastOnceDeliverySnapshot& snapshot);

  absl::Duration RedeliverInterval() const { return redeliver_interval_; }

 private:
  bool InterceptMessage(const actor::MessageView& message) final;
  void OnReplaySuccess() final;
  void OnIncarnationEnd() final;

  void Send(internal::PendingDelivery& delivery, absl::Time now);
  void RedeliverOverdue();
  absl::Time Now() const;

  // From akka.persistence.at-least-once-delivery, read on construction.
  absl::Duration redeliver_interval_;
  int burst_limit_;
  int warn_after_;
  int max_unconfirmed_;
  int64_t delivery_sequence_nr_ = 0;
  std::map<int64_t, internal::PendingDelivery>
      unconfirmed_;  // by id: oldest first
  actor::Cancellable redelivery_timer_;
  const uint64_t tick_instance_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_AT_LEAST_ONCE_DELIVERY_H_
