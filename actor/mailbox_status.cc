#include "actor/mailbox_status.h"

#include "actor/internal/actor_cell.h"

namespace cairn::actor {

std::optional<MailboxStatus> LocalMailboxStatus(const ActorRef& ref) {
  if (ref.IsNobody()) return std::nullopt;
  internal::ActorCell* cell = ref.impl()->AsCell();
  if (cell == nullptr || cell->IsTerminated()) return std::nullopt;
  return cell->GetMailboxStatus();
}

}  // namespace cairn::actor
