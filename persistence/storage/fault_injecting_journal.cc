#include "persistence/storage/fault_injecting_journal.h"

#include <utility>

#include "base/string_view.h"

namespace cairn::persistence {
namespace {

absl::Status InjectedWriteFailure() {
  return absl::UnavailableError("injected write failure");
}

absl::Status InjectedReplayFailure() {
  return absl::UnavailableError("injected replay failure");
}

absl::Status InjectedRejection(const AtomicWrite& write) {
  if (write.events.empty()) {
    return absl::InvalidArgumentError("injected rejection");
  }
  const PersistentRepr& first = write.events.front();
  return absl::InvalidArgumentError(
      base::StrCat("persistence id '", first.persistence_id, "', sequence nr ",
                   first.sequence_nr, ": injected rejection"));
}

// The event of a write rejected here: no serializer knows the type.
struct RejectedByInjection {};

}  // namespace

void JournalFaults::FailNextWrites(int calls) {
  std::lock_guard<std::mutex> lock(mu_);
  failing_writes_ = calls;
}

void JournalFaults::SetFailWrites(bool fail) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_writes_ = fail;
}

void JournalFaults::RejectNextWrites(int writes) {
  std::lock_guard<std::mutex> lock(mu_);
  rejecting_writes_ = writes;
}

void JournalFaults::FailNextReplays(int replays) {
  std::lock_guard<std::mutex> lock(mu_);
  failing_replays_ = replays;
}

void JournalFaults::SetFailReplays(bool fail) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_replays_ = fail;
}

bool JournalFaults::TakeWriteFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_writes_) return true;
  if (failing_writes_ > 0) {
    --failing_writes_;
    return true;
  }
  return false;
}

bool JournalFaults::FailsDeletes() {
  std::lock_guard<std::mutex> lock(mu_);
  return fail_writes_;
}

bool JournalFaults::TakeReplayFailure() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_replays_) return true;
  if (failing_replays_ > 0) {
    --failing_replays_;
    return true;
  }
  return false;
}

bool JournalFaults::FailsHighestReads() {
  std::lock_guard<std::mutex> lock(mu_);
  return fail_replays_;
}

void JournalFaults::TakeRejections(size_t writes, std::vector<bool>& rejected) {
  std::lock_guard<std::mutex> lock(mu_);
  rejected.assign(writes, false);
  for (size_t i = 0; i < writes && rejecting_writes_ > 0; ++i) {
    rejected[i] = true;
    --rejecting_writes_;
  }
}

FaultInjectingJournal::FaultInjectingJournal(
    std::unique_ptr<Journal> inner, std::shared_ptr<JournalFaults> faults)
    : JournalWrapper(std::move(inner)),
      faults_(faults != nullptr ? std::move(faults)
                                : std::make_shared<JournalFaults>()) {}

FaultInjectingJournal::~FaultInjectingJournal() = default;

void FaultInjectingJournal::FailAfterWrites(
    absl::AnyInvocable<void() &&> done) {
  target().AsyncWriteMessages(
      {}, [done = std::move(done)](absl::Status,
                                   std::vector<absl::Status>) mutable {
        std::move(done)();
      });
}

void FaultInjectingJournal::FailAfterReads(std::string id,
                                           absl::AnyInvocable<void() &&> done) {
  // A replay of nothing, to answer on the wrapped journal's reader thread.
  target().AsyncReplayMessages(
      std::move(id), 1, 0, 0, [](const PersistentRepr&) {},
      [done = std::move(done)](absl::Status) mutable { std::move(done)(); });
}

void FaultInjectingJournal::AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                               WriteCallback done) {
  if (faults_->TakeWriteFailure()) {
    FailAfterWrites([done = std::move(done), count = writes.size()]() mutable {
      // Built here and moved, so this thread keeps no reference to a status
      // the callback may hand to another thread (see base/status_copy.h).
      absl::Status failure = InjectedWriteFailure();
      std::vector<absl::Status> per_write(count, failure);
      std::move(done)(std::move(failure), std::move(per_write));
    });
    return;
  }
  std::vector<bool> rejected;
  faults_->TakeRejections(writes.size(), rejected);
  // A rejected write still goes to the wrapped journal, with events that no
  // serializer knows, so that the journal rejects it itself and counts its
  // sequence numbers as used (journal.h): the writer goes on after them,
  // as after a real rejection. Its outcome is then replaced by ours.
  std::vector<absl::Status> per_write(writes.size());
  for (size_t i = 0; i < writes.size(); ++i) {
    if (!rejected[i]) continue;
    per_write[i] = InjectedRejection(writes[i]);
    for (PersistentRepr& event : writes[i].events) {
      event.payload = Payload::Of(RejectedByInjection{});
    }
  }
  target().AsyncWriteMessages(
      std::move(writes),
      [done = std::move(done), rejected = std::move(rejected),
       per_write = std::move(per_write)](
          absl::Status batch, std::vector<absl::Status> outcomes) mutable {
        if (!batch.ok()) {
          // `outcomes` share `batch`'s representation: let go of them before
          // `batch` goes to a callback that may hand it to another thread
          // (absl::Status's reference count is invisible to
          // ThreadSanitizer; see base/status_copy.h).
          outcomes.clear();
          std::vector<absl::Status> failed(per_write.size(), batch);
          std::move(done)(std::move(batch), std::move(failed));
          return;
        }
        for (size_t i = 0; i < per_write.size(); ++i) {
          if (!rejected[i]) per_write[i] = std::move(outcomes[i]);
        }
        std::move(done)(absl::OkStatus(), std::move(per_write));
      });
}

void FaultInjectingJournal::AsyncReplayMessages(std::string persistence_id,
                                                int64_t from_sequence_nr,
                                                int64_t to_sequence_nr,
                                                int64_t max,
                                                ReplayCallback on_event,
                                                DoneCallback done) {
  if (faults_->TakeReplayFailure()) {
    FailAfterReads(std::move(persistence_id),
                   [done = std::move(done)]() mutable {
                     std::move(done)(InjectedReplayFailure());
                   });
    return;
  }
  target().AsyncReplayMessages(std::move(persistence_id), from_sequence_nr,
                               to_sequence_nr, max, std::move(on_event),
                               std::move(done));
}

void FaultInjectingJournal::AsyncReadHighestSequenceNr(
    std::string persistence_id, int64_t from_sequence_nr,
    HighestCallback done) {
  if (faults_->FailsHighestReads()) {
    FailAfterReads(std::move(persistence_id),
                   [done = std::move(done)]() mutable {
                     std::move(done)(InjectedReplayFailure());
                   });
    return;
  }
  target().AsyncReadHighestSequenceNr(std::move(persistence_id),
                                      from_sequence_nr, std::move(done));
}

void FaultInjectingJournal::AsyncDeleteMessagesTo(std::string persistence_id,
                                                  int64_t to_sequence_nr,
                                                  DoneCallback done) {
  if (faults_->FailsDeletes()) {
    FailAfterWrites([done = std::move(done)]() mutable {
      std::move(done)(InjectedWriteFailure());
    });
    return;
  }
  target().AsyncDeleteMessagesTo(std::move(persistence_id), to_sequence_nr,
                                 std::move(done));
}

}  // namespace cairn::persistence
