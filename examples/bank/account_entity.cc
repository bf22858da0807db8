#include "examples/bank/account_entity.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "examples/bank/account.h"
#include "examples/bank/protocol.h"

namespace cairn::examples::bank {
namespace {

// The amount of a held Deposit or Withdraw (0 for another command), so
// that its failure names it.
int64_t AmountOfCommand(const actor::AnyMessage& command) {
  if (const Deposit* d = command.As<Deposit>()) return AmountOf(*d);
  if (const Withdraw* w = command.As<Withdraw>()) return AmountOf(*w);
  return 0;
}

}  // namespace

AccountEntity::AccountEntity(int64_t number,
                             std::shared_ptr<RecoveryProgress> progress)
    : number_(number), progress_(std::move(progress)) {
  Receive<OpenAccount>(
      [this](const OpenAccount& c) { Route(actor::AnyMessage::Of(c)); });
  Receive<Deposit>(
      [this](const Deposit& c) { Route(actor::AnyMessage::Of(c)); });
  Receive<Withdraw>(
      [this](const Withdraw& c) { Route(actor::AnyMessage::Of(c)); });
  Receive<GetBalance>(
      [this](const GetBalance& c) { Route(actor::AnyMessage::Of(c)); });
  Receive<TakeSnapshot>(
      [this](const TakeSnapshot& c) { Route(actor::AnyMessage::Of(c)); });

  Receive<AccountRecovered>([this](const AccountRecovered&) {
    if (Sender() != account_) return;  // an earlier incarnation's
    recovered_ = true;
    for (auto& [command, sender] : waiting_) account_.TellAny(command, sender);
    waiting_.clear();
    if (stopping_) account_.Tell(StopAccount{}, Self());
  });
  Receive<AccountFailed>([this](const AccountFailed& m) {
    if (Sender() != account_) return;
    // The Account is stopping: what comes now waits for the next one.
    recovered_ = false;
    AccountReply failed;
    failed.outcome = AccountReply::Outcome::kFailed;
    failed.account = number_;
    failed.reason = m.reason;
    for (auto& [command, sender] : waiting_) {
      failed.amount = AmountOfCommand(command);
      sender.Tell(failed);
    }
    waiting_.clear();
  });
  Receive<actor::Terminated>(
      [this](const actor::Terminated& t) { OnTerminated(t.actor); });
  Receive<StopAccount>([this](const StopAccount&) {
    stopping_ = true;
    if (!account_) {
      Context().Stop(Self());
    } else if (recovered_) {
      account_.Tell(StopAccount{}, Self());
    }
    // Else recovering: AccountRecovered sends the stop after what waits,
    // AccountFailed answers it; the Account's end stops this entity.
  });
}

void AccountEntity::PostStop() {
  // Stopped from outside (its shard lost its lease) with commands held:
  // none of them took effect.
  AccountReply failed;
  failed.outcome = AccountReply::Outcome::kFailed;
  failed.account = number_;
  failed.reason = absl::StrCat("account ", number_,
                               " stopped here before taking the command");
  for (auto& [command, sender] : waiting_) {
    failed.amount = AmountOfCommand(command);
    sender.Tell(failed);
  }
  waiting_.clear();
}

void AccountEntity::Route(actor::AnyMessage command) {
  if (!account_) StartAccount();
  if (recovered_) {
    account_.TellAny(command, Sender());
  } else {
    waiting_.emplace_back(std::move(command), Sender());
  }
}

void AccountEntity::StartAccount() {
  account_ = Context().ActorOf(
      actor::Props::Create<Account>(number_, Self(), progress_), "account");
  recovered_ = false;
  Context().Watch(account_);
}

void AccountEntity::OnTerminated(const actor::ActorRef& ref) {
  if (ref != account_) return;
  account_ = actor::ActorRef();
  recovered_ = false;
  if (stopping_) {
    Context().Stop(Self());
  } else if (!waiting_.empty()) {
    StartAccount();  // a new incarnation tries again
  }
}

}  // namespace cairn::examples::bank
