#include "examples/bank/undelivered.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/messages.h"
#include "examples/bank/account.h"
#include "examples/bank/protocol.h"

namespace cairn::examples::bank {
namespace {

// If `letter` is a command of type C, answers its sender (if any) and
// returns true.
template <typename C>
bool AnswerUndelivered(const actor::DeadLetter& letter,
                       const RecoveryProgress* progress) {
  const C* command = letter.message.As<C>();
  if (command == nullptr) return false;
  if (letter.sender.IsNobody()) return true;
  AccountReply failed;
  failed.outcome = AccountReply::Outcome::kFailed;
  failed.account = command->account;
  failed.amount = AmountOf(*command);
  std::optional<std::string> recovery_failure;
  if (progress != nullptr) {
    recovery_failure = progress->FailureOf(
        AccountPersistenceId(command->account), letter.recipient);
  }
  failed.reason =
      recovery_failure.has_value()
          ? *std::move(recovery_failure)
          : absl::StrCat("the command for account ", command->account,
                         " was not delivered (it did not take effect)");
  letter.sender.Tell(std::move(failed));
  return true;
}

}  // namespace

int64_t AnswerUndeliveredCommands(
    actor::ActorSystem& system,
    std::shared_ptr<const RecoveryProgress> progress) {
  return system.EventStream().SubscribeFunction<actor::DeadLetter>(
      [progress = std::move(progress)](const actor::DeadLetter& letter) {
        const RecoveryProgress* p = progress.get();
        if (AnswerUndelivered<OpenAccount>(letter, p)) return;
        if (AnswerUndelivered<Deposit>(letter, p)) return;
        if (AnswerUndelivered<Withdraw>(letter, p)) return;
        if (AnswerUndelivered<GetBalance>(letter, p)) return;
        AnswerUndelivered<TakeSnapshot>(letter, p);
      });
}

}  // namespace cairn::examples::bank
