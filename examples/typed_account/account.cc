#include "examples/typed_account/account.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace cairn::examples::typed_account {
namespace {

using Effect = Account::Effect;
using ReplyEffect = Account::ReplyEffect;
using persistence::typed::Overloaded;

Confirmation Accepted(const Balance& balance) {
  return Confirmation{true, balance.amount, ""};
}

Confirmation Refused(const Balance& balance, std::string reason) {
  return Confirmation{false, balance.amount, std::move(reason)};
}

}  // namespace

Account MakeAccount(const std::string& id) {
  return Account::WithEnforcedReplies(
             "account-" + id, Balance{},
             Overloaded{
                 [](const Balance& balance, const Deposit& d) -> ReplyEffect {
                   if (d.amount <= 0) {
                     return Effect::Reply(
                         d.reply_to,
                         Refused(balance, "a deposit must be positive"));
                   }
                   if (d.amount >
                       std::numeric_limits<int64_t>::max() - balance.amount) {
                     return Effect::Reply(
                         d.reply_to,
                         Refused(balance, "the balance would overflow"));
                   }
                   return Effect::Persist(Deposited{d.amount})
                       .ThenReply(d.reply_to, &Accepted);
                 },
                 [](const Balance& balance, const Withdraw& w) -> ReplyEffect {
                   if (w.amount <= 0) {
                     return Effect::Reply(
                         w.reply_to,
                         Refused(balance, "a withdrawal must be positive"));
                   }
                   if (w.amount > balance.amount) {
                     return Effect::Reply(
                         w.reply_to, Refused(balance, "insufficient funds"));
                   }
                   return Effect::Persist(Withdrawn{w.amount})
                       .ThenReply(w.reply_to, &Accepted);
                 },
                 [](const Balance& balance, const GetBalance& g) {
                   return Effect::Reply(g.reply_to, balance.amount);
                 }},
             Overloaded{[](Balance b, const Deposited& e) {
                          b.amount += e.amount;
                          return b;
                        },
                        [](Balance b, const Withdrawn& e) {
                          b.amount -= e.amount;
                          return b;
                        }})
      .WithTagger([](const AccountEvent&) {
        return std::vector<std::string>{"accounts"};
      })
      .WithRetention(persistence::RetentionCriteria::SnapshotEvery(100, 2));
}

absl::Status RegisterAccountTypes(
    serialization::SerializationRegistry& registry) {
  if (absl::Status s = serialization::RegisterJson<Deposited>(
          registry, "typed_account.Deposited");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = serialization::RegisterJson<Withdrawn>(
          registry, "typed_account.Withdrawn");
      !s.ok()) {
    return s;
  }
  return serialization::RegisterJson<Balance>(registry,
                                              "typed_account.Balance");
}

}  // namespace cairn::examples::typed_account
