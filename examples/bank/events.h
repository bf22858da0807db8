#ifndef CAIRN_EXAMPLES_BANK_EVENTS_H_
#define CAIRN_EXAMPLES_BANK_EVENTS_H_

// What the bank's persistent actors store: plain values, serialized as the
// FlatBuffers tables of bank_events.fbs (see serialization.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cairn::examples::bank {

// Events of an account (persistence id "account-<N>"): the first is Opened,
// then deposits and withdrawals, each one event.
struct Opened {};
struct Deposited {
  int64_t amount = 0;
  // The balance after the deposit (since the second version of the stored
  // form, bank.Deposited.v2; absent in events stored as v1). Recovery
  // checks it, so that a wrongly read amount (a bad upcast, a damaged
  // record that still parses) fails the account's recovery instead of
  // giving it a wrong balance.
  std::optional<int64_t> balance;
  // The Deposit's deposit_id (protocol.h); empty for a deposit without one
  // (and for every deposit stored before ids were). Replay rebuilds the
  // account's ids from these, so a deposit sent again after a crash or a
  // takeover is still recognised.
  std::string deposit_id{};
};
struct Withdrawn {
  int64_t amount = 0;
};

// The tag of every Deposited and Withdrawn event: queries by tag
// (docs/QUERIES.md) read all movements of all accounts in commit order.
inline constexpr char kMovementsTag[] = "movements";

// An account's snapshot: its state after the event it was taken at.
struct AccountSnapshot {
  bool open = false;
  int64_t balance = 0;
  // Every deposit_id stored up to it (a snapshot replaces those events).
  std::vector<std::string> deposit_ids{};
};

// Events of a `bank deposits` client (depositor.h, persistence id
// "deposits-<name>"), stored as JSON: a deposit it will deliver at least
// once (the index-th of its run, `amount` to `account`), and the answer
// that ended the delivery of `delivery_id`.
struct DepositRequested {
  int64_t index = 0;
  int64_t account = 0;
  int64_t amount = 0;
};
struct DepositAnswered {
  int64_t delivery_id = 0;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_EVENTS_H_
