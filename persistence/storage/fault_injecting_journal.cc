#include "persistence/storage/fault_injecting_journal.h"

#include <utility>

#include "base/mutex.h"
#include "base/string_view.h"
#include "persistence/storage/internal/write_with_rejections.h"

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

}  // namespace

void JournalFaults::FailNextWrites(int calls) {
  base::MutexLock lock(&mu_);
  failing_writes_ = calls;
}

void JournalFaults::SetFailWrites(bool fail) {
  base::MutexLock lock(&mu_);
  fail_writes_ = fail;
}

void JournalFaults::RejectNextWrites(int writes) {
  base::MutexLock lock(&mu_);
  rejecting_writes_ = writes;
}

void JournalFaults::FailNextReplays(int replays) {
  base::MutexLock lock(&mu_);
  failing_replays_ = replays;
}

void JournalFaults::SetFailReplays(bool fail) {
  base::MutexLock lock(&mu_);
  fail_replays_ = fail;
}

bool JournalFaults::TakeWriteFailure() {
  base::MutexLock lock(&mu_);
  if (fail_writes_) return true;
  if (failing_writes_ > 0) {
    --failing_writes_;
    return true;
  }
  return false;
}

bool JournalFaults::FailsDeletes() {
  base::MutexLock lock(&mu_);
  return fail_writes_;
}

bool JournalFaults::TakeReplayFailure() {
  base::MutexLock lock(&mu_);
  if (fail_replays_) return true;
  if (failing_replays_ > 0) {
    --failing_replays_;
    return true;
  }
  return false;
}

bool JournalFaults::FailsHighestReads() {
  base::MutexLock lock(&mu_);
  return fail_replays_;
}

void JournalFaults::TakeRejections(size_t writes, std::vector<bool>& rejected) {
  base::MutexLock lock(&mu_);
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
  std::vector<absl::Status> rejections(writes.size());
  for (size_t i = 0; i < writes.size(); ++i) {
    if (rejected[i]) rejections[i] = InjectedRejection(writes[i]);
  }
  storage_internal::WriteWithRejections(target(), std::move(writes),
                                        std::move(rejections), std::move(done));
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

void FaultInjectingJournal::AsyncDeleteMessagesTo(
    std::string persistence_id, int64_t to_sequence_nr,
    std::optional<WriteFence> fence, DoneCallback done) {
  if (faults_->FailsDeletes()) {
    FailAfterWrites([done = std::move(done)]() mutable {
      std::move(done)(InjectedWriteFailure());
    });
    return;
  }
  target().AsyncDeleteMessagesTo(std::move(persistence_id), to_sequence_nr,
                                 std::move(fence), std::move(done));
}

}  // namespace cairn::persistence
