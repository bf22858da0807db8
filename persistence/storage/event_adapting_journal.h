#ifndef CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTING_JOURNAL_H_
#define CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTING_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "persistence/storage/event_adapter.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/journal_wrapper.h"

namespace cairn::persistence {

// A journal that runs a plugin's event adapters (Akka applies them in its
// AsyncWriteJournal): on write, each event whose type has an adapter is
// replaced by ToJournal's result, with Manifest's value in
// adapter_manifest; on replay, each stored event whose type has an adapter
// is replaced by the events FromJournal returns (none, one or several),
// each with the stored event's sequence number and envelope. Events without
// an adapter pass unchanged. `max` of a replay counts the events delivered,
// in whole stored events: while the adapters dropped events of a full read,
// the replay reads on, for as many stored events as events are missing (so
// a page that comes short is the stream's end, as a caller that pages
// expects); where they split the stored event that reaches `max`, it
// delivers all its events, so more than `max` (and a caller that pages goes
// on after the last).
// The persistence extension wraps a plugin's journal in one when the
// plugin has adapters bound (in code or by config).
//
// Failures: a ToJournal failure rejects that AtomicWrite (with the
// adapter's status code, naming the persistence id, sequence number and
// type; its sequence
// numbers count as used, journal.h); a FromJournal failure ends the replay
// with the adapter's status code, naming the persistence id, sequence
// number and adapter manifest (the events after it are not delivered).
//
// Ownership, thread safety and callbacks: JournalWrapper's, except that a
// replay that reads on may call `on_event` on another plugin thread for
// each read (each call after the one before); one that the destructor
// finds reading on fails with kCancelled.
class EventAdaptingJournal : public JournalWrapper {
 public:
  // Neither may be null.
  EventAdaptingJournal(std::unique_ptr<Journal> target,
                       std::shared_ptr<const EventAdapters> adapters);
  ~EventAdaptingJournal() override;

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  // The target's, with the first page's events adapted (and read on) as a
  // replay's, `page_max` counting as `max`.
  void AsyncStartRecovery(RecoveryStartRequest request, ReplayCallback on_event,
                          RecoveryStartCallback done) override;
  // The target's queries with the events passed through the adapters as a
  // replay passes them: each stored event becomes the events FromJournal
  // returns, with its offset; a FromJournal failure fails the Pull. A
  // Pull still delivers at most `max` (the events an adapter adds wait
  // for the next Pull).
  absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() override;

 private:
  struct Replay;  // one replay's progress

  // Reads the target for the rest of `state`'s replay, from
  // `from_sequence_nr` on; `done` gets the outcome once it is whole.
  void Read(std::shared_ptr<Replay> state, int64_t from_sequence_nr,
            DoneCallback done);
  void ReadDone(std::shared_ptr<Replay> state, absl::Status status,
                DoneCallback done);

  std::shared_ptr<const EventAdapters> adapters_;
  base::Mutex mu_;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;  // no read may start
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTING_JOURNAL_H_
