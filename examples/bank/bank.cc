#include "examples/bank/bank.h"

#include <stdexcept>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "examples/bank/account.h"
#include "examples/bank/events.h"
#include "persistence/messages.h"

namespace cairn::examples::bank {

using Outcome = AccountReply::Outcome;

namespace {

AccountReply Answer(Outcome outcome, int64_t account, std::string reason) {
  AccountReply r;
  r.outcome = outcome;
  r.account = account;
  r.reason = std::move(reason);
  return r;
}

}  // namespace

Bank::Bank(actor::Promise<void> recovered,
           std::shared_ptr<RecoveryProgress> progress)
    : recovered_(std::move(recovered)),
      progress_(std::move(progress)),
      stream_(progress_ != nullptr ? &progress_->StreamOf(kBankPersistenceId)
                                   : nullptr) {
  if (stream_ != nullptr) stream_->Restart();
  Recover<AccountRegistered>([this](const AccountRegistered& e) {
    accounts_.insert(e.account);
    if (stream_ != nullptr) stream_->Reached(LastSequenceNr());
  });
  Recover<persistence::RecoveryCompleted>(
      [this](const persistence::RecoveryCompleted&) {
        if (stream_ != nullptr) stream_->Finished();
        recovered_.TrySetValue();
      });

  Command<OpenAccount>([this](const OpenAccount& c) {
    if (c.account < 0) {
      Sender().Tell(Answer(Outcome::kRefused, c.account,
                           "account numbers are not negative"));
      return;
    }
    if (accounts_.contains(c.account)) {
      Route(c);
      return;
    }
    Persist(AccountRegistered{c.account}, [this](const AccountRegistered& e) {
      accounts_.insert(e.account);
      Route(OpenAccount{e.account});  // Sender() is still the opener
    });
  });
  Command<Deposit>([this](const Deposit& c) { Route(c); });
  Command<Withdraw>([this](const Withdraw& c) { Route(c); });
  Command<GetBalance>([this](const GetBalance& c) { Route(c); });
  Command<TakeSnapshot>([this](const TakeSnapshot& c) { Route(c); });
  Command<ListAccounts>([this](const ListAccounts&) {
    Sender().Tell(
        AccountList{std::vector<int64_t>(accounts_.begin(), accounts_.end())});
  });

  Command<AccountRecovered>([this](const AccountRecovered& m) {
    auto it = entities_.find(m.account);
    if (it == entities_.end() || it->second.ref != Sender()) return;
    Entity& e = it->second;
    e.recovered = true;
    for (Waiting& w : e.waiting) w.deliver(e.ref);
    e.waiting.clear();
  });
  Command<AccountFailed>([this](const AccountFailed& m) {
    auto it = entities_.find(m.account);
    if (it == entities_.end() || it->second.ref != Sender()) return;
    Entity& e = it->second;
    // The account is stopping: what comes now waits for the next one.
    e.recovered = false;
    for (Waiting& w : e.waiting) {
      w.sender.Tell(Answer(Outcome::kFailed, m.account, m.reason));
    }
    e.waiting.clear();
  });
  Command<actor::Terminated>(
      [this](const actor::Terminated& t) { OnTerminated(t.actor); });
}

template <typename C>
void Bank::Route(const C& command) {
  if (!accounts_.contains(command.account)) {
    Sender().Tell(
        Answer(Outcome::kRefused, command.account,
               absl::StrCat("there is no account ", command.account)));
    return;
  }
  Entity& e = EntityFor(command.account);
  if (e.recovered) {
    e.ref.Tell(command, Sender());
    return;
  }
  e.waiting.push_back(
      Waiting{[command, sender = Sender()](const actor::ActorRef& account) {
                account.Tell(command, sender);
              },
              Sender()});
}

Bank::Entity& Bank::EntityFor(int64_t account) {
  Entity& e = entities_[account];
  if (!e.ref) StartAccount(account, e);
  return e;
}

void Bank::StartAccount(int64_t account, Entity& entity) {
  entity.ref = Context().ActorOf(
      actor::Props::Create<Account>(account, Self(), progress_),
      AccountPersistenceId(account));
  entity.recovered = false;
  Context().Watch(entity.ref);
  account_of_[entity.ref] = account;
}

void Bank::OnTerminated(const actor::ActorRef& ref) {
  auto found = account_of_.find(ref);
  if (found == account_of_.end()) return;
  const int64_t account = found->second;
  account_of_.erase(found);
  auto it = entities_.find(account);
  if (it == entities_.end() || it->second.ref != ref) return;
  if (it->second.waiting.empty()) {
    entities_.erase(it);
  } else {
    StartAccount(account, it->second);  // a new incarnation tries again
  }
}

void Bank::OnRecoveryFailure(const absl::Status& cause,
                             const persistence::Payload*) {
  recovered_.TrySetException(std::make_exception_ptr(
      std::runtime_error(std::string(cause.message()))));
}

}  // namespace cairn::examples::bank
