#ifndef CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_JOURNAL_H_
#define CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/journal_wrapper.h"

namespace cairn::persistence {

// What a FaultInjectingJournal is told to fail or reject. Separate from the
// journal so that a test can hold it before the journal exists (plugins are
// made lazily, by the Persistence extension) and share it with the journal.
//
// Thread safety: every method from any thread; a setting applies to the
// operations submitted after it.
class JournalFaults {
 public:
  // The next `calls` calls of AsyncWriteMessages fail as a whole: the batch
  // status is Unavailable ("injected write failure").
  void FailNextWrites(int calls);
  // While on, every AsyncWriteMessages and AsyncDeleteMessagesTo fails as
  // above (the store is down).
  void SetFailWrites(bool fail);
  // The next `writes` AtomicWrites (counted across calls) are rejected one
  // by one: their per-write status is InvalidArgument ("injected
  // rejection") while the rest of their batch is written.
  void RejectNextWrites(int writes);
  // The next `replays` calls of AsyncReplayMessages fail with Unavailable
  // ("injected replay failure"): the next `replays` recoveries fail.
  void FailNextReplays(int replays);
  // While on, AsyncReplayMessages and AsyncReadHighestSequenceNr fail with
  // Unavailable ("injected replay failure"): recovery fails.
  void SetFailReplays(bool fail);

  // For the journal: whether the call about to be made fails (each
  // consumes one count of FailNext*), and which writes of a call to reject.
  bool TakeWriteFailure();
  bool FailsDeletes();
  bool TakeReplayFailure();
  bool FailsHighestReads();
  void TakeRejections(size_t writes, std::vector<bool>& rejected);

 private:
  base::Mutex mu_;
  int failing_writes_ ABSL_GUARDED_BY(mu_) = 0;
  bool fail_writes_ ABSL_GUARDED_BY(mu_) = false;
  int rejecting_writes_ ABSL_GUARDED_BY(mu_) = 0;
  int failing_replays_ ABSL_GUARDED_BY(mu_) = 0;
  bool fail_replays_ ABSL_GUARDED_BY(mu_) = false;
};

// A journal decorator (JournalWrapper, which owns the wrapped journal) that
// fails or rejects operations on command: for tests of whatever sits on a
// journal (a persistent actor's OnPersistFailure, OnPersistRejected,
// OnRecoveryFailure), with any plugin underneath.
//
// Injected outcomes keep the Journal contract: they are delivered through
// the wrapped journal (an empty write, or a replay of nothing, is sent to it
// and its callback reports the injected status), so they arrive on the
// wrapped journal's threads and in order with the operations around them.
// An injected failure stores nothing.
//
// Reads go to the wrapped journal in the order they are made, so journal.h's
// read-after-write rule is the wrapped journal's: a read of an id waits
// there for the forwarded writes and deletes of that id before it. Writes
// and deletes failed or rejected here store nothing (the wrapped journal
// gets none of their events), so no read needs to wait for them.
//
// Thread safety: every method may be called from any thread; a setting
// applies to the operations submitted after it.
class FaultInjectingJournal final : public JournalWrapper {
 public:
  // `inner` must not be null. `faults`: shared settings (see
  // JournalFaults); null makes the journal its own.
  explicit FaultInjectingJournal(std::unique_ptr<Journal> inner,
                                 std::shared_ptr<JournalFaults> faults = {});
  ~FaultInjectingJournal() override;

  // The settings, as JournalFaults' methods of the same names.
  void FailNextWrites(int calls) { faults_->FailNextWrites(calls); }
  void SetFailWrites(bool fail) { faults_->SetFailWrites(fail); }
  void RejectNextWrites(int writes) { faults_->RejectNextWrites(writes); }
  void FailNextReplays(int replays) { faults_->FailNextReplays(replays); }
  void SetFailReplays(bool fail) { faults_->SetFailReplays(fail); }
  JournalFaults& faults() const { return *faults_; }

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override;
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override;

 private:
  // Runs `done` where the wrapped journal completes writes, after the
  // writes submitted before (by sending it an empty write).
  void FailAfterWrites(absl::AnyInvocable<void() &&> done);
  // Runs `done` where the wrapped journal completes reads of `id` (after a
  // replay of nothing).
  void FailAfterReads(std::string id, absl::AnyInvocable<void() &&> done);

  const std::shared_ptr<JournalFaults> faults_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_JOURNAL_H_
