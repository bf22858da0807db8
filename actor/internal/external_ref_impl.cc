#include "actor/internal/external_ref_impl.h"

#include <string>
#include <utility>
#include <vector>

#include "actor/actor_system.h"
#include "actor/internal/envelope.h"
#include "actor/internal/selection_delivery.h"
#include "actor/internal/system_message.h"

namespace cairn::actor::internal {

void ExternalRefImpl::Deliver(Envelope* envelope) {
  std::unique_ptr<Envelope, EnvelopeDisposer> owned(envelope);
  const Payload& payload = envelope->payload();
  const ActorRef sender(envelope->sender());
  if (payload.runtime_message() &&
      payload.type() == typeid(SelectionDelivery)) {
    // An ActorSelection whose anchor is over there: the rest of its path
    // is followed on the other side.
    const auto& selection =
        *static_cast<const SelectionDelivery*>(payload.raw());
    std::vector<std::string> rest(
        selection.elements->begin() +
            static_cast<std::ptrdiff_t>(selection.next),
        selection.elements->end());
    target_->SendSelection(std::move(rest), selection.message, sender);
    return;
  }
  payload.AddRef();
  target_->Send(AnyMessage(&payload), sender);
}

void ExternalRefImpl::SendSystem(SystemMessage* message) {
  std::unique_ptr<SystemMessage> m(message);
  switch (m->kind) {
    case SystemMessageKind::kWatch:
      target_->Watch(m->ref);
      return;
    case SystemMessageKind::kUnwatch:
      target_->Unwatch(m->ref);
      return;
    case SystemMessageKind::kDeathWatchNotification:
      target_->DeathWatchNotification(m->ref, m->existence_confirmed);
      return;
    case SystemMessageKind::kTerminate:
      // ActorSystem::Stop of a remote actor: cairn has no remote
      // deployment, so no system stops another's actors.
      system_->Log(path_.ToString())
          .Warning(
              "Stop of an actor in another system is not supported; "
              "send it a PoisonPill instead");
      return;
    default:
      // Lifecycle and supervision stay within a system: a remote actor is
      // never a local actor's child here.
      return;
  }
}

}  // namespace cairn::actor::internal
