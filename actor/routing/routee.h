#ifndef CAIRN_ACTOR_ROUTING_ROUTEE_H_
#define CAIRN_ACTOR_ROUTING_ROUTEE_H_

#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "actor/actor_ref.h"
#include "actor/actor_selection.h"
#include "actor/any_message.h"

namespace cairn::actor::routing {

// One destination of a router: an actor by ref (pool routees, groups given
// refs) or by selection (groups given paths, looked up on every send, as
// Akka's ActorSelectionRoutee). A value type; cheap to copy.
//
// Thread safety: every method from any thread.
class Routee {
 public:
  explicit Routee(ActorRef ref) : ref_(std::move(ref)) {}
  explicit Routee(ActorSelection selection)
      : selection_(std::move(selection)) {}

  // Sends `message` with `sender` kept, so the routee replies to the
  // router's sender, not to the router.
  void Send(const AnyMessage& message, const ActorRef& sender) const;

  // The ref; NoSender for a routee given by path.
  const ActorRef& ref() const { return ref_; }
  bool is_selection() const { return selection_.has_value(); }
  // The actor's path, or the selection's.
  std::string ToString() const;

  // Refs by identity, selections by their path text.
  friend bool operator==(const Routee& a, const Routee& b) {
    if (a.is_selection() != b.is_selection()) return false;
    if (!a.is_selection()) return a.ref_ == b.ref_;
    return a.selection_->ToString() == b.selection_->ToString();
  }
  friend bool operator!=(const Routee& a, const Routee& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& os, const Routee& r) {
    return os << r.ToString();
  }

 private:
  ActorRef ref_;
  std::optional<ActorSelection> selection_;
};

}  // namespace cairn::actor::routing

#endif  // CAIRN_ACTOR_ROUTING_ROUTEE_H_
