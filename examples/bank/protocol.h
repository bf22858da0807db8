#ifndef CAIRN_EXAMPLES_BANK_PROTOCOL_H_
#define CAIRN_EXAMPLES_BANK_PROTOCOL_H_

// The messages of the bank's actors. Commands go to the Bank, which routes
// each to its account by the `account` field; every account command is
// answered with one AccountReply.

#include <cstdint>
#include <string>
#include <vector>

namespace cairn::examples::bank {

// --- Commands -----------------------------------------------------------

// Registers the account number (if new) and opens the account. Opening an
// open account is refused.
struct OpenAccount {
  int64_t account = 0;
};
struct Deposit {
  int64_t account = 0;
  int64_t amount = 0;  // > 0
};
// Refused, with the reason, if it exceeds the balance.
struct Withdraw {
  int64_t account = 0;
  int64_t amount = 0;  // > 0
};
struct GetBalance {
  int64_t account = 0;
};
// Saves the account's state as a snapshot; answered once it is stored.
struct TakeSnapshot {
  int64_t account = 0;
};

// Answered by the Bank with an AccountList.
struct ListAccounts {};
struct AccountList {
  std::vector<int64_t> accounts;  // ascending
};

// --- Replies ------------------------------------------------------------

struct AccountReply {
  enum class Outcome {
    kDone,     // the command took effect (its event is stored)
    kRefused,  // a business rule said no; nothing changed
    kFailed,   // the account could not recover or persist
  };
  Outcome outcome = Outcome::kDone;
  int64_t account = 0;
  std::string reason;  // why refused or failed
  int64_t amount = 0;  // of the deposit or withdrawal
  bool open = false;
  int64_t balance = 0;
  // Of the last event; for TakeSnapshot, the one the snapshot was taken at.
  int64_t last_sequence_nr = 0;
  // How this incarnation of the account recovered: from the snapshot at
  // this sequence number (0: none), then this many events replayed.
  int64_t snapshot_sequence_nr = 0;
  int64_t replayed_events = 0;
};

// --- From an account to its supervisor (the Bank) -----------------------

struct AccountRecovered {
  int64_t account = 0;
};
// The account could not recover, or a write failed; it stops.
struct AccountFailed {
  int64_t account = 0;
  std::string reason;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_PROTOCOL_H_
