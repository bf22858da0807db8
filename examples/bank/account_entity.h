#ifndef CAIRN_EXAMPLES_BANK_ACCOUNT_ENTITY_H_
#define CAIRN_EXAMPLES_BANK_ACCOUNT_ENTITY_H_

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "actor/actor.h"
#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "examples/bank/recovery_progress.h"

namespace cairn::examples::bank {

// The entity of one account in the accounts' region (account_region.h):
// the parent of the account's Account actor, started by the first command.
//
// It holds the commands until the Account has recovered, so that if the
// recovery fails each waiting sender gets an AccountReply (kFailed) with
// the reason, which names the persistence id and the sequence number. A
// PersistentActor whose recovery fails stops, and what it stashed while
// recovering goes to dead letters: held in the Account, the commands
// would not be answered with that reason. The next command starts a new
// Account, which tries again.
//
// StopAccount, the region's stop message (idle passivation, the
// active-entity limit, shutdown), stops it gracefully: the commands it
// holds go to the Account once it has recovered (or are answered if it
// cannot), then the Account gets StopAccount after them, and the entity
// stops when the Account has.
//
// Stopped otherwise (its shard lost its lease), it answers the commands
// it holds kFailed: none of them took effect.
//
// `progress`, if given, hears how far the Account's recoveries get.
class AccountEntity final : public actor::Actor {
 public:
  AccountEntity(int64_t number, std::shared_ptr<RecoveryProgress> progress);

 private:
  void PostStop() override;
  // A command (with its sender) for the Account: sent on once it has
  // recovered, held until then.
  void Route(actor::AnyMessage command);
  void StartAccount();
  void OnTerminated(const actor::ActorRef& ref);

  const int64_t number_;
  const std::shared_ptr<RecoveryProgress> progress_;
  actor::ActorRef account_;  // empty: none running
  bool recovered_ = false;   // account_ takes commands
  bool stopping_ = false;    // StopAccount came
  std::vector<std::pair<actor::AnyMessage, actor::ActorRef>> waiting_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_ACCOUNT_ENTITY_H_
