#ifndef CAIRN_EXAMPLES_BANK_ACCOUNT_H_
#define CAIRN_EXAMPLES_BANK_ACCOUNT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "actor/actor_ref.h"
#include "examples/bank/protocol.h"
#include "examples/bank/recovery_progress.h"
#include "persistence/persistent_actor.h"
#include "serialization/payload.h"

namespace cairn::examples::bank {

// "account-7" for account 7.
std::string AccountPersistenceId(int64_t account);
// 7 for "account-7"; nullopt for an id that is not an account's.
std::optional<int64_t> AccountOfPersistenceId(
    const std::string& persistence_id);

// One bank account, event-sourced (persistence id "account-<N>"): its
// balance is the sum of its Deposited events minus its Withdrawn events,
// rebuilt on start from the newest snapshot and the events after it.
// Commands (protocol.h) are answered with an AccountReply to the sender;
// a deposit or withdrawal is answered after its event is stored (Persist),
// so a kDone reply means the event survives a crash.
//
// An account exists once it has an Opened event: until then OpenAccount is
// the only command it takes, and every other is refused with "there is no
// account N", without storing anything (no event, no snapshot), so an
// account nobody opened leaves no trace in the store.
//
// A Deposit with a deposit_id already stored (a redelivery) is answered
// kDone with `duplicate` set and the account's current balance, and
// stores nothing: the ids are in the Deposited events (and snapshots), so
// this holds across restarts and takeovers by other processes.
//
// StopAccount stops it, after the commands that came before it (a
// PersistentActor holds it while recovering or persisting, as any command)
// and the snapshots they asked for are answered; the accounts region
// passivates with it. Stopped otherwise (its shard lost its lease, say)
// while an event is being written, it asks the journal, once that write is
// done, what the event's sequence number holds, and answers that command
// kFailed: "not stored" if nothing or another event (another writer's);
// "may or may not be stored" if an event like it (it cannot tell its own
// from another writer's same deposit) or if the journal cannot be read.
// Commands it had not started on go to dead letters, as any stopped
// actor's (AnswerUndeliveredCommands answers them). Every reply to a deposit or
// withdrawal names its amount, the failed ones too.
//
// It is the accounts region's entity (account_region.h). A recovery that
// fails stops it, and the commands it held for the recovery go to dead
// letters, as any stopped actor's: AnswerUndeliveredCommands
// (undelivered.h) answers them kFailed with the recovery's reason, which
// `progress` keeps (RecoveryProgress::FailureOf). The next command starts
// a new incarnation, which tries again.
//
// `progress`, if given, hears how far each recovery has got (the sequence
// number of every snapshot and event applied), for a program that waits
// for it, and why one failed.
class Account final : public persistence::PersistentActor {
 public:
  explicit Account(int64_t number,
                   std::shared_ptr<RecoveryProgress> progress = nullptr);

  std::string PersistenceId() const override {
    return AccountPersistenceId(number_);
  }

 protected:
  void PostStop() override;
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload* event) override;
  // The write failed: the command is answered kFailed, "not stored" if
  // the journal refused the write (FailedPrecondition), else saying that
  // it may or may not be stored; then the account stops.
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload& event,
                        int64_t sequence_nr) override;
  // The journal refused the event (nothing stored): the command is
  // answered kFailed with the reason, and the account goes on.
  void OnPersistRejected(const absl::Status& cause,
                         const serialization::Payload& event,
                         int64_t sequence_nr) override;

 private:
  // Counts a replayed event, failing the recovery if its sequence number
  // does not follow the previous one: this journal's events are never
  // deleted, so a gap means lost events, and a balance without them would
  // be wrong.
  void CountReplayed();
  // Stops once StopAccount came and no snapshot is being saved.
  void StopIfAsked();
  // Tells `progress` the sequence number recovered so far.
  void ReportRecovered();
  AccountReply Reply(AccountReply::Outcome outcome, std::string reason = "",
                     int64_t amount = 0, std::string deposit_id = "") const;
  // Refuses (and returns false) a command for an account never opened.
  bool CheckOpen(int64_t amount = 0, const std::string& deposit_id = "");
  // Refuses (and returns false) a deposit or withdrawal the account cannot
  // take whatever its balance.
  bool CheckAmount(int64_t amount, const std::string& deposit_id = "");

  const int64_t number_;
  const std::shared_ptr<RecoveryProgress> progress_;
  RecoveryProgress::Stream* const stream_;  // in progress_; null without
  bool open_ = false;
  bool stop_asked_ = false;
  int64_t balance_ = 0;
  int64_t replayed_events_ = 0;
  // The deposit_id of every deposit stored with one (from the events and
  // the snapshot): a Deposit with one of them is answered, not stored
  // again. Kept for the account's life, so it grows with its deduplicated
  // deposits (README.md, "Several processes in a cluster").
  absl::flat_hash_set<std::string> deposit_ids_;
  // The command whose event is being written (Persist stores one at a
  // time): its sender, its amount (0 for an open), the event and its
  // sequence number.
  struct Writing {
    actor::ActorRef sender;
    int64_t amount = 0;
    int64_t sequence_nr = 0;
    serialization::Payload event;
    std::string deposit_id;
  };
  // Starts a write of `event` for the current command.
  void StartWriting(int64_t amount, serialization::Payload event,
                    std::string deposit_id = "");
  // The write being made, which is then no longer (an empty one if none).
  Writing TakeWriting();
  // Answers the command being written, once the journal says what its
  // event's sequence number holds (the write's outcome never reaches a
  // stopped actor).
  void AnswerAfterStop();
  // Who asked for the snapshot at `sequence_nr`, who are then forgotten.
  std::vector<actor::ActorRef> TakeSnapshotRequesters(int64_t sequence_nr);
  // Null while no write is being made: behind a pointer, as the snapshot
  // requesters are in a vector, for the memory of an idle account (a
  // service holds millions).
  std::unique_ptr<Writing> writing_;
  // Who asked for the snapshot being saved at each sequence number, by
  // sequence number (few: one entry per snapshot in flight).
  std::vector<std::pair<int64_t, std::vector<actor::ActorRef>>>
      snapshot_requesters_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_ACCOUNT_H_
