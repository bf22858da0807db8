#ifndef CAIRN_EXAMPLES_BANK_BANK_H_
#define CAIRN_EXAMPLES_BANK_BANK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "actor/actor_ref.h"
#include "actor/future.h"
#include "examples/bank/protocol.h"
#include "examples/bank/recovery_progress.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/payload.h"

namespace cairn::examples::bank {

inline constexpr char kBankPersistenceId[] = "bank";

// The bank: the registry of account numbers (persistence id "bank", one
// AccountRegistered event per account) and the parent of the Account
// actors, to which it routes the commands of protocol.h by account number.
//
// The registry is how `bank balances` finds every account: the journal
// interface cannot list persistence ids. An account is registered before
// its Opened event is written, so a crash between the two leaves a
// registered account without events (balance 0, sequence number 0), never
// an account nobody can find; opening it again completes it.
//
// An account actor is started on its first command and holds its commands
// back while it recovers. Held here rather than in the account's own stash
// so that, if the recovery fails, each waiting sender gets an AccountReply
// with the reason (which names the persistence id and the sequence number)
// instead of its command vanishing with the stopped actor. The next command
// for that account starts a new incarnation, which tries again.
//
// `recovered` completes when the registry has been recovered, or fails
// (std::runtime_error with the reason) if its recovery failed: what a
// program waits on before it sends commands.
//
// `progress`, if given, hears how far the recoveries of the registry and
// of every account have got (see Account).
class Bank final : public persistence::PersistentActor {
 public:
  explicit Bank(actor::Promise<void> recovered = actor::Promise<void>(),
                std::shared_ptr<RecoveryProgress> progress = nullptr);

  std::string PersistenceId() const override { return kBankPersistenceId; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const persistence::Payload* event) override;

 private:
  // A command for an account, kept until the account has recovered.
  struct Waiting {
    std::function<void(const actor::ActorRef& account)> deliver;
    actor::ActorRef sender;
  };
  struct Entity {
    actor::ActorRef ref;
    bool recovered = false;
    std::vector<Waiting> waiting;
  };

  // Sends `command` to its account, starting the account if needed, or
  // refuses it if the number is not registered.
  template <typename C>
  void Route(const C& command);
  Entity& EntityFor(int64_t account);
  void StartAccount(int64_t account, Entity& entity);
  void OnTerminated(const actor::ActorRef& ref);

  actor::Promise<void> recovered_;
  const std::shared_ptr<RecoveryProgress> progress_;
  RecoveryProgress::Stream* const stream_;  // in progress_; null without
  std::set<int64_t> accounts_;
  std::map<int64_t, Entity> entities_;
  std::map<actor::ActorRef, int64_t> account_of_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_BANK_H_
