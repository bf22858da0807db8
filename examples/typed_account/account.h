#ifndef CAIRN_EXAMPLES_TYPED_ACCOUNT_ACCOUNT_H_
#define CAIRN_EXAMPLES_TYPED_ACCOUNT_ACCOUNT_H_

// A bank account on the typed persistence API (docs/TYPED.md): the same
// entity as examples/bank's classic Account, written as an
// EventSourcedBehavior. Every command is answered (WithEnforcedReplies:
// a handler that could return without answering does not compile), the
// balance changes only in the event handler, and an answer means the
// event is stored.

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "actor/typed_ref.h"
#include "persistence/typed/event_sourced_behavior.h"
#include "serialization/json_serialization.h"
#include "serialization/serialization.h"

namespace cairn::examples::typed_account {

// What a command answers: accepted (and the balance after it), or refused
// with why.
struct Confirmation {
  bool accepted = false;
  int64_t balance = 0;
  std::string reason;
};

// Commands.
struct Deposit {
  int64_t amount = 0;
  actor::ReplyTo<Confirmation> reply_to;
};
struct Withdraw {
  int64_t amount = 0;
  actor::ReplyTo<Confirmation> reply_to;
};
struct GetBalance {
  actor::ReplyTo<int64_t> reply_to;
};
using AccountCommand = std::variant<Deposit, Withdraw, GetBalance>;

// Events, stored as JSON (each type registered, RegisterAccountTypes).
struct Deposited {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposited, amount)
struct Withdrawn {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Withdrawn, amount)
using AccountEvent = std::variant<Deposited, Withdrawn>;

// The state (stored too, as the snapshots every 100 events).
struct Balance {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Balance, amount)

using Account = persistence::typed::EventSourcedBehavior<AccountCommand,
                                                         AccountEvent, Balance>;

// The account `id` (persistence id "account-<id>"), tagged "accounts".
Account MakeAccount(const std::string& id);

// Registers the events and the state with `registry`.
absl::Status RegisterAccountTypes(
    serialization::SerializationRegistry& registry);

}  // namespace cairn::examples::typed_account

#endif  // CAIRN_EXAMPLES_TYPED_ACCOUNT_ACCOUNT_H_
