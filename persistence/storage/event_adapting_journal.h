#ifndef CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTING_JOURNAL_H_
#define CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTING_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "persistence/storage/event_adapter.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/journal_wrapper.h"

namespace cairn::persistence {

// A journal that runs a plugin's event adapters (Akka applies them in its
// AsyncWriteJournal): on write, each event whose type has an adapter is
// replaced by ToJournal's result, with Manifest's value in
// adapter_manifest; on replay, each stored event whose type has an adapter
// is replaced by the events FromJournal returns (none, one or several),
// each with the stored event's sequence number and envelope. `max` of a
// replay counts stored events. Events without an adapter pass unchanged.
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
// Ownership, thread safety and callbacks: JournalWrapper's.
class EventAdaptingJournal : public JournalWrapper {
 public:
  // Neither may be null.
  EventAdaptingJournal(std::unique_ptr<Journal> target,
                       std::shared_ptr<const EventAdapters> adapters);

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  // The target's, with the first batch's events adapted as a replay's.
  void AsyncStartRecovery(RecoveryStartRequest request, ReplayCallback on_event,
                          RecoveryStartCallback done) override;
  // The target's queries with the events passed through the adapters as a
  // replay passes them: each stored event becomes the events FromJournal
  // returns, with its offset; a FromJournal failure fails the Pull. A
  // Pull still delivers at most `max` (the events an adapter adds wait
  // for the next Pull).
  absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() override;

 private:
  std::shared_ptr<const EventAdapters> adapters_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTING_JOURNAL_H_
