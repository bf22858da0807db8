#ifndef CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_JOURNAL_H_
#define CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "persistence/storage/journal.h"
#include "persistence/storage/journal_wrapper.h"

namespace cairn::persistence {

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
  // `inner` must not be null.
  explicit FaultInjectingJournal(std::unique_ptr<Journal> inner);
  ~FaultInjectingJournal() override;

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
  // While on, AsyncReplayMessages and AsyncReadHighestSequenceNr fail with
  // Unavailable ("injected replay failure"): recovery fails.
  void SetFailReplays(bool fail);

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override;
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             DoneCallback done) override;

 private:
  // Whether the next write call fails; consumes one FailNextWrites count.
  bool TakeWriteFailure();
  bool FailReplays();
  // Marks in `rejected` the writes to reject; consumes RejectNextWrites.
  void TakeRejections(size_t writes, std::vector<bool>& rejected);
  // Runs `done` where the wrapped journal completes writes, after the
  // writes submitted before (by sending it an empty write).
  void FailAfterWrites(absl::AnyInvocable<void() &&> done);

  std::mutex mu_;
  int failing_writes_ = 0;     // guarded by mu_
  bool fail_writes_ = false;   // guarded by mu_
  int rejecting_writes_ = 0;   // guarded by mu_
  bool fail_replays_ = false;  // guarded by mu_
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_FAULT_INJECTING_JOURNAL_H_
