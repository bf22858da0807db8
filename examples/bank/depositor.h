#ifndef CAIRN_EXAMPLES_BANK_DEPOSITOR_H_
#define CAIRN_EXAMPLES_BANK_DEPOSITOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "actor/actor_ref.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "persistence/at_least_once_delivery.h"

namespace cairn::examples::bank {

// Tells a Depositor how many deposits to make: deposit i (0 <= i < ops)
// of amount i + 1 to account i % accounts, as `bank load` does. Given
// again to a Depositor recovered with the same name, it goes on from the
// first deposit it never requested (the earlier ones are in its events).
struct StartDeposits {
  int64_t accounts = 1;
  int64_t ops = 0;
};

// What a Depositor tells its program (called on the actor's thread).
struct DepositorListener {
  // A deposit its account answered for the first time: done (stored once,
  // whether this delivery or an earlier one stored it) or refused.
  std::function<void(int64_t delivery_id, const AccountReply& reply)> answered;
  // Every deposit up to StartDeposits::ops is answered; `before` of them
  // were answered in an earlier run.
  std::function<void(int64_t before)> finished;
  // Deliveries sent again and again without an answer (the accounts'
  // processes unreachable, say); they go on being sent.
  std::function<void(int64_t unconfirmed)> waiting;
};

// A client that makes deposits at least once (persistence id
// "deposits-<name>", an AtLeastOnceDelivery): each deposit is first
// persisted as DepositRequested, then sent to `accounts` (a region or a
// proxy) as a Deposit with the deposit_id "<name>/<delivery id>", and sent
// again every redeliver-interval until an AccountReply for that id comes,
// done or refused; kFailed replies and ShardUnavailable are not answers (the
// deposit is sent again). The answer is persisted (DepositAnswered) before
// it is confirmed, so a client killed and started again with the same name
// sends exactly the unanswered deposits again. Since the accounts store a
// deposit_id once (account.h), every deposit is counted once however often
// it is sent.
//
// At most kDepositWindow deposits are unanswered at a time: more are
// requested as answers come.
//
// Only one Depositor of a name may run at a time (two would write one
// stream). Thread safety: as any Actor.
class Depositor final : public persistence::AtLeastOnceDelivery {
 public:
  static constexpr int64_t kDepositWindow = 1000;

  Depositor(std::string name, actor::ActorRef accounts,
            DepositorListener listener);

  std::string PersistenceId() const override { return "deposits-" + name_; }

 private:
  void Apply(const DepositRequested& e);
  // Requests the next deposits, as the window allows.
  void RequestMore();
  void FinishIfDone();

  const std::string name_;
  const actor::ActorRef accounts_;
  const DepositorListener listener_;
  StartDeposits start_;
  bool started_ = false;
  bool requesting_ = false;
  bool finished_ = false;
  int64_t requested_ = 0;  // deposits requested (DepositRequested events)
  int64_t answered_before_ = 0;
  // Deliveries not answered yet, and those whose answer is being
  // persisted (a second answer, to a redelivery, is not persisted again).
  std::set<int64_t> unanswered_;
  std::set<int64_t> answering_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_DEPOSITOR_H_
