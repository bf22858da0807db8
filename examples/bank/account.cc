#include "examples/bank/account.h"

#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/mutex.h"
#include "examples/bank/events.h"
#include "persistence/messages.h"
#include "persistence/persistence.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/tagged.h"

namespace cairn::examples::bank {

using persistence::RecoveryCompleted;
using persistence::SaveSnapshotFailure;
using persistence::SaveSnapshotSuccess;
using persistence::SnapshotOffer;
using persistence::Tagged;
using serialization::Payload;
using Outcome = AccountReply::Outcome;

namespace {
constexpr char kPersistenceIdPrefix[] = "account-";
}  // namespace

std::string AccountPersistenceId(int64_t account) {
  return absl::StrCat(kPersistenceIdPrefix, account);
}

std::optional<int64_t> AccountOfPersistenceId(
    const std::string& persistence_id) {
  absl::string_view number = persistence_id;
  int64_t account = 0;
  // Only the form AccountPersistenceId makes ("account-07" is not one).
  if (!absl::ConsumePrefix(&number, kPersistenceIdPrefix) ||
      !absl::SimpleAtoi(number, &account) ||
      AccountPersistenceId(account) != persistence_id) {
    return std::nullopt;
  }
  return account;
}

Account::Account(int64_t number, std::shared_ptr<RecoveryProgress> progress)
    : number_(number),
      progress_(std::move(progress)),
      stream_(progress_ != nullptr
                  ? &progress_->StreamOf(AccountPersistenceId(number))
                  : nullptr) {
  if (stream_ != nullptr) stream_->Restart();
  // --- Recovery: apply what is stored, decide nothing. ---
  Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
    const auto* state = offer.snapshot.As<AccountSnapshot>();
    if (state == nullptr) {
      throw std::runtime_error(absl::StrCat("snapshot of type ",
                                            offer.snapshot.TypeName(),
                                            " is not an AccountSnapshot"));
    }
    open_ = state->open;
    balance_ = state->balance;
    deposit_ids_ = {state->deposit_ids.begin(), state->deposit_ids.end()};
    ReportRecovered();
  });
  Recover<Opened>([this](const Opened&) {
    CountReplayed();
    open_ = true;
    ReportRecovered();
  });
  Recover<Deposited>([this](const Deposited& e) {
    CountReplayed();
    balance_ += e.amount;
    if (!e.deposit_id.empty()) deposit_ids_.insert(e.deposit_id);
    if (e.balance.has_value() && *e.balance != balance_) {
      // Fails the recovery (persistent_actor.h), naming the event.
      throw std::runtime_error(absl::StrCat(
          "account ", number_, ": the deposit at sequence number ",
          LastSequenceNr(), " of ", e.amount, " says the balance is ",
          *e.balance, ", the events before it give ", balance_));
    }
    ReportRecovered();
  });
  Recover<Withdrawn>([this](const Withdrawn& e) {
    CountReplayed();
    balance_ -= e.amount;
    ReportRecovered();
  });
  Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
    if (stream_ != nullptr) stream_->Finished();
  });

  // --- Commands: check, persist, then change state and answer. ---
  Command<OpenAccount>([this](const OpenAccount&) {
    if (number_ < 0) {
      Sender().Tell(
          Reply(Outcome::kRefused, "account numbers are not negative"));
      return;
    }
    if (open_) {
      Sender().Tell(Reply(Outcome::kRefused, absl::StrCat("account ", number_,
                                                          " is already open")));
      return;
    }
    StartWriting(0, Payload::Of(Opened{}));
    Persist(Opened{}, [this](const Opened&) {
      open_ = true;
      writing_.reset();
      Sender().Tell(Reply(Outcome::kDone));
    });
  });
  Command<Deposit>([this](const Deposit& d) {
    if (!CheckAmount(d.amount, d.deposit_id)) return;
    if (!d.deposit_id.empty() && deposit_ids_.contains(d.deposit_id)) {
      AccountReply reply = Reply(Outcome::kDone, "", d.amount, d.deposit_id);
      reply.duplicate = true;
      Sender().Tell(std::move(reply));
      return;
    }
    if (d.amount > std::numeric_limits<int64_t>::max() - balance_) {
      Sender().Tell(Reply(Outcome::kRefused, "the balance would overflow",
                          d.amount, d.deposit_id));
      return;
    }
    const int64_t amount = d.amount;
    const Deposited event{amount, balance_ + amount, d.deposit_id};
    StartWriting(amount, Payload::Of(event), d.deposit_id);
    Persist(Tagged{Payload::Of(event), {kMovementsTag}},
            [this, amount, id = d.deposit_id](const Tagged&) {
              balance_ += amount;
              if (!id.empty()) deposit_ids_.insert(id);
              writing_.reset();
              Sender().Tell(Reply(Outcome::kDone, "", amount, id));
            });
  });
  Command<Withdraw>([this](const Withdraw& w) {
    if (!CheckAmount(w.amount)) return;
    if (w.amount > balance_) {
      Sender().Tell(Reply(Outcome::kRefused,
                          absl::StrCat("insufficient funds: the balance is ",
                                       balance_, ", the withdrawal ", w.amount),
                          w.amount));
      return;
    }
    const int64_t amount = w.amount;
    StartWriting(amount, Payload::Of(Withdrawn{amount}));
    Persist(Tagged{Payload::Of(Withdrawn{amount}), {kMovementsTag}},
            [this, amount](const Tagged&) {
              balance_ -= amount;
              writing_.reset();
              Sender().Tell(Reply(Outcome::kDone, "", amount));
            });
  });
  Command<GetBalance>([this](const GetBalance&) {
    if (CheckOpen()) Sender().Tell(Reply(Outcome::kDone));
  });
  Command<TakeSnapshot>([this](const TakeSnapshot&) {
    if (!CheckOpen()) return;
    if (snapshot_requesters_.empty() ||
        snapshot_requesters_.back().first != LastSequenceNr()) {
      snapshot_requesters_.emplace_back(LastSequenceNr(),
                                        std::vector<actor::ActorRef>());
    }
    snapshot_requesters_.back().second.push_back(Sender());
    SaveSnapshot(AccountSnapshot{
        open_, balance_, {deposit_ids_.begin(), deposit_ids_.end()}});
  });
  Command<SaveSnapshotSuccess>([this](const SaveSnapshotSuccess& s) {
    const std::vector<actor::ActorRef> requesters =
        TakeSnapshotRequesters(s.metadata.sequence_nr);
    if (requesters.empty()) return;
    AccountReply reply = Reply(Outcome::kDone);
    reply.last_sequence_nr = s.metadata.sequence_nr;
    for (const actor::ActorRef& r : requesters) r.Tell(reply);
    StopIfAsked();
  });
  Command<SaveSnapshotFailure>([this](const SaveSnapshotFailure& s) {
    const std::vector<actor::ActorRef> requesters =
        TakeSnapshotRequesters(s.metadata.sequence_nr);
    if (requesters.empty()) return;
    AccountReply reply =
        Reply(Outcome::kFailed, std::string(s.cause.message()));
    for (const actor::ActorRef& r : requesters) r.Tell(reply);
    StopIfAsked();
  });
  Command<StopAccount>([this](const StopAccount&) {
    stop_asked_ = true;
    StopIfAsked();
  });
}

void Account::CountReplayed() {
  const int64_t expected = SnapshotSequenceNr() + replayed_events_ + 1;
  if (LastSequenceNr() != expected) {
    throw std::runtime_error(
        absl::StrCat("events are missing: event ", LastSequenceNr(),
                     " of account ", number_, " follows event ", expected - 1));
  }
  ++replayed_events_;
}

void Account::StopIfAsked() {
  // A snapshot being saved is answered first.
  if (stop_asked_ && snapshot_requesters_.empty()) Context().Stop(Self());
}

void Account::ReportRecovered() {
  if (stream_ != nullptr) stream_->Reached(LastSequenceNr());
}

bool Account::CheckOpen(int64_t amount, const std::string& deposit_id) {
  if (open_) return true;
  Sender().Tell(Reply(Outcome::kRefused,
                      absl::StrCat("there is no account ", number_), amount,
                      deposit_id));
  return false;
}

bool Account::CheckAmount(int64_t amount, const std::string& deposit_id) {
  if (!CheckOpen(amount, deposit_id)) return false;
  if (amount <= 0) {
    Sender().Tell(Reply(Outcome::kRefused, "the amount must be positive",
                        amount, deposit_id));
    return false;
  }
  return true;
}

AccountReply Account::Reply(Outcome outcome, std::string reason, int64_t amount,
                            std::string deposit_id) const {
  AccountReply r;
  r.outcome = outcome;
  r.account = number_;
  r.reason = std::move(reason);
  r.amount = amount;
  r.open = open_;
  r.balance = balance_;
  r.last_sequence_nr = LastSequenceNr();
  r.snapshot_sequence_nr = SnapshotSequenceNr();
  r.replayed_events = replayed_events_;
  r.deposit_id = std::move(deposit_id);
  return r;
}

void Account::OnRecoveryFailure(const absl::Status& cause,
                                const serialization::Payload* event) {
  // The cause names the persistence id and the sequence number: the
  // commands that were waiting (dead letters once this actor stops) are
  // answered with it (undelivered.h). Not logged then: each answer says
  // it.
  if (stream_ != nullptr) {
    stream_->Fail(std::string(cause.message()), Self());
  } else {
    PersistentActor::OnRecoveryFailure(cause, event);
  }
}

void Account::StartWriting(int64_t amount, Payload event,
                           std::string deposit_id) {
  // One write at a time: the commands that come meanwhile are held, so the
  // event gets the next sequence number.
  writing_ = std::make_unique<Writing>(
      Writing{Sender(), amount, LastSequenceNr() + 1, std::move(event),
              std::move(deposit_id)});
}

Account::Writing Account::TakeWriting() {
  std::unique_ptr<Writing> writing = std::move(writing_);
  return writing != nullptr ? std::move(*writing) : Writing();
}

std::vector<actor::ActorRef> Account::TakeSnapshotRequesters(
    int64_t sequence_nr) {
  for (auto it = snapshot_requesters_.begin(); it != snapshot_requesters_.end();
       ++it) {
    if (it->first != sequence_nr) continue;
    std::vector<actor::ActorRef> requesters = std::move(it->second);
    snapshot_requesters_.erase(it);
    return requesters;
  }
  return {};
}

void Account::PostStop() {
  // Stopped from outside (its shard lost its lease, the system stops)
  // while an event was being written: the write's outcome will not be
  // heard here, but its sender should not wait for an answer that never
  // comes, nor be told "maybe" when the journal knows.
  if (writing_ != nullptr && !writing_->sender.IsNobody()) AnswerAfterStop();
}

namespace {

// Whether `stored` is an event like `ours`: of the same kind, the same
// amount and (a deposit) the same balance after it.
bool SameEvent(const Payload& stored, const Payload& ours) {
  if (const auto* d = ours.As<Deposited>()) {
    const auto* s = stored.As<Deposited>();
    return s != nullptr && s->amount == d->amount && s->balance == d->balance &&
           s->deposit_id == d->deposit_id;
  }
  if (const auto* w = ours.As<Withdrawn>()) {
    const auto* s = stored.As<Withdrawn>();
    return s != nullptr && s->amount == w->amount;
  }
  return ours.As<Opened>() != nullptr && stored.As<Opened>() != nullptr;
}

// What the journal had at the sequence number of a write cut off by a
// stop: between the replay's callbacks (one at a time) and its end.
struct Found {
  base::Mutex mu;
  bool any ABSL_GUARDED_BY(mu) = false;
  bool same ABSL_GUARDED_BY(mu) = false;
};

}  // namespace

void Account::AnswerAfterStop() {
  Writing writing = TakeWriting();
  const std::string stopped =
      absl::StrCat("account ", number_, " stopped before its event ",
                   writing.sequence_nr, " was confirmed");
  AccountReply reply =
      Reply(Outcome::kFailed, "", writing.amount, writing.deposit_id);
  absl::StatusOr<persistence::Journal*> journal =
      persistence::Persistence::Get(Context().System()).JournalFor("");
  if (!journal.ok()) {
    reply.reason = absl::StrCat(
        stopped, ", and the journal could not be asked (",
        journal.status().message(), "): it may or may not be stored");
    writing.sender.Tell(std::move(reply));
    return;
  }
  // Read after write (journal.h): this replay sees the outcome of the
  // write this actor submitted before it. Events are never deleted here,
  // so nothing at that sequence number means nothing stored; another event
  // there is another writer's (a process that took the account's shard
  // over), so this one was refused.
  auto found = std::make_shared<Found>();
  (*journal)->AsyncReplayMessages(
      PersistenceId(), writing.sequence_nr, writing.sequence_nr, 1,
      [found, event = writing.event](const persistence::PersistentRepr& r) {
        base::MutexLock lock(&found->mu);
        found->any = true;
        found->same = SameEvent(r.payload, event);
      },
      [found, sender = writing.sender, reply = std::move(reply), stopped,
       sequence_nr = writing.sequence_nr](absl::Status status) mutable {
        base::MutexLock lock(&found->mu);
        if (!status.ok()) {
          reply.reason =
              absl::StrCat(stopped,
                           ", and the journal could not be "
                           "read (",
                           status.message(), "): it may or may not be stored");
        } else if (!found->any) {
          reply.reason =
              absl::StrCat("not stored: ", stopped,
                           ", and the journal has no event ", sequence_nr);
        } else if (!found->same) {
          reply.reason = absl::StrCat("not stored: ", stopped,
                                      ", and the journal's event ", sequence_nr,
                                      " is another (another writer's)");
        } else {
          reply.reason = absl::StrCat(
              stopped, ", and the journal's event ", sequence_nr,
              " is like it (this one or another writer's same one): it may "
              "or may not be stored");
        }
        sender.Tell(std::move(reply));
      });
}

void Account::OnPersistRejected(const absl::Status& cause,
                                const serialization::Payload&, int64_t) {
  // Sender() is the sender of the command whose event was refused.
  const Writing writing = TakeWriting();
  Sender().Tell(Reply(Outcome::kFailed,
                      absl::StrCat("not stored: ", cause.message()),
                      writing.amount, writing.deposit_id));
}

void Account::OnPersistFailure(const absl::Status& cause,
                               const serialization::Payload&, int64_t) {
  // Sender() is the sender of the command whose event failed. A journal
  // answers FailedPrecondition for a write it refused before storing
  // anything (a lost lease, a read-only store, a sequence number taken);
  // any other failure (a connection lost at the commit) may have come
  // after the event was stored.
  const Writing writing = TakeWriting();
  const bool refused = cause.code() == absl::StatusCode::kFailedPrecondition;
  Sender().Tell(Reply(
      Outcome::kFailed,
      refused ? absl::StrCat("not stored: ", cause.message())
              : absl::StrCat(cause.message(), " (it may or may not be stored)"),
      writing.amount, writing.deposit_id));
}

}  // namespace cairn::examples::bank
