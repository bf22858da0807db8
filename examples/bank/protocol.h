#ifndef CAIRN_EXAMPLES_BANK_PROTOCOL_H_
#define CAIRN_EXAMPLES_BANK_PROTOCOL_H_

// The messages of the bank's actors. Commands go to the accounts' region
// (account_region.h), which routes each to its account by the `account`
// field; every account command is answered with one AccountReply. The
// commands and AccountReply cross processes in a cluster (serialization.h,
// RegisterBankMessages); StopAccount, from an account's shard, does not.

#include <cstdint>
#include <string>

namespace cairn::examples::bank {

// --- Commands -----------------------------------------------------------

// Opens the account. Opening an open account, or a negative number, is
// refused. Every other command for an account never opened is refused
// with "there is no account N", and stores nothing.
struct OpenAccount {
  int64_t account = 0;
};
// With a deposit_id, the deposit is idempotent: an account that has
// stored a deposit with that id answers kDone (`duplicate` set) and
// stores nothing more, so a sender that sends it again until it is
// answered (an at-least-once delivery, deposits.cc) counts it once. The
// id must be unique among all deposits to the account (e.g. the sender's
// name and its delivery id); empty: not deduplicated.
struct Deposit {
  int64_t account = 0;
  int64_t amount = 0;  // > 0
  std::string deposit_id{};
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
  // Of a Deposit: its deposit_id, in every reply to it.
  std::string deposit_id{};
  // kDone for a deposit whose id was stored before: nothing more stored.
  bool duplicate = false;
};

// The amount of a Deposit or Withdraw command; 0 for any other message.
inline int64_t AmountOf(const Deposit& c) { return c.amount; }
inline int64_t AmountOf(const Withdraw& c) { return c.amount; }
template <typename C>
int64_t AmountOf(const C&) {
  return 0;
}

// The accounts region's stop message (passivation, shutdown): the Account
// stops once what came before it is handled and the snapshots it is saving
// are answered. A PoisonPill also waits for the commands a persistent
// actor holds back (persistent_actor.h), but not for a snapshot's save.
struct StopAccount {};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_PROTOCOL_H_
