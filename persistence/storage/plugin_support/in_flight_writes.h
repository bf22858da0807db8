#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_IN_FLIGHT_WRITES_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_IN_FLIGHT_WRITES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/any_invocable.h"
#include "absl/types/span.h"
#include "base/mutex.h"

namespace cairn::persistence::plugin_support {

// Read-after-write ordering per persistence id (journal.h): the writes and
// deletes a journal has accepted but not yet completed, by persistence id,
// and the reads held back until the writes to their id that were submitted
// before them have completed.
//
// A journal whose reads run beside its writer (the RocksDB journal) needs
// this: otherwise a restarted persistent actor, whose previous incarnation's
// write is still being committed, reads the highest sequence number from
// before that write, numbers its next event the same and overwrites it.
//
// A read waits for the writes begun before it, not for those begun after:
// a stream that is written continuously does not starve its readers.
// Writes are told apart by ticket, not counted, because two threads' writes
// to one id may reach the writer in the other order than they began here.
// A read of an id with nothing in flight is started inside StartRead; there
// is no barrier across ids.
//
// Cost on the write path: one lock and one map lookup per id per call (a
// lock per group of calls with EndAll), a map insert and erase when an
// id's first write begins and its last ends.
// Nothing is allocated per event.
//
// Thread safety: every method may be called from any thread. `start` runs
// under no lock, so a started read may call back in.
class InFlightWrites {
 public:
  using Ticket = uint64_t;
  using Read = absl::AnyInvocable<void() &&>;

  // `start` starts a read (e.g. posts it to reader threads). It is called
  // by StartRead for a read that need not wait, and by End and EndAll for
  // the reads a completed write releases.
  explicit InFlightWrites(absl::AnyInvocable<void(Read)> start);
  // Destroy it once every write begun has ended: no read is held then.
  ~InFlightWrites();
  InFlightWrites(const InFlightWrites&) = delete;
  InFlightWrites& operator=(const InFlightWrites&) = delete;

  // A write (or delete) of `ids` (duplicates allowed) is about to be handed
  // to the writer. Call it before the write can complete, and call End with
  // the same ids and the ticket returned once it has.
  Ticket Begin(absl::Span<const std::string> ids);
  void End(absl::Span<const std::string> ids, Ticket ticket);
  // End of each write of `ended`, under one lock: a writer that completes
  // many writes at once (a group commit) takes it once, not once each,
  // and keeps it from the callers of Begin for less.
  struct Ended {
    absl::Span<const std::string> ids;
    Ticket ticket = 0;
  };
  void EndAll(absl::Span<const Ended> ended);

  // Starts `read` of `persistence_id` now if no write of it is in flight;
  // otherwise once the writes of it begun before this call have ended.
  void StartRead(const std::string& persistence_id, Read read);

  // For tests: reads held back now.
  size_t held_reads() const;

 private:
  struct Stream {
    // Tickets of the writes in flight, ascending (begun under mu_).
    absl::InlinedVector<Ticket, 2> writing;
    // Held reads with the last ticket begun before each, in arrival order.
    std::vector<std::pair<Ticket, Read>> waiting;
  };

  // End's work for one write, under mu_: the reads it lets go go to
  // `released`.
  void EndLocked(absl::Span<const std::string> ids, Ticket ticket,
                 std::vector<Read>& released)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::AnyInvocable<void(Read)> start_;
  mutable base::Mutex mu_;
  Ticket last_ticket_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, Stream> streams_ ABSL_GUARDED_BY(mu_);
  size_t held_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cairn::persistence::plugin_support

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_IN_FLIGHT_WRITES_H_
