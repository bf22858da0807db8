#ifndef CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_JOURNAL_H_
#define CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_JOURNAL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "base/task_runner.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_support/commit_notifier.h"
#include "serialization/serialization.h"

namespace cairn::persistence::inmem_internal {

// What one in-memory journal stores, shared with its read journals (which
// may outlive it).
//
// Thread safety: only the journal's thread changes it, always under `mu`.
// That thread reads it without `mu` (nothing else writes); every other
// thread (the read journals') reads it under `mu`, and never calls out
// while holding it. `notifier` has its own lock: the journal notifies it
// after each commit, with `mu` released, so live queries read again.
struct InMemoryStore {
  struct StoredEvent {
    int64_t sequence_nr = 0;
    serialization::SerializedPayload payload;
    std::string adapter_manifest;
    std::string writer_uuid;
    int64_t timestamp = 0;
    std::vector<std::string> tags;
  };
  struct Stream {
    std::map<int64_t, StoredEvent> events;
    int64_t highest = 0;  // kept when events are deleted; counts rejections
    bool listed = false;  // in persistence_ids: it has a highest
  };
  // Where the event with a tag offset is. Kept when the event is deleted
  // (a query skips it), so offsets are never given twice.
  struct TagEntry {
    std::string persistence_id;
    int64_t sequence_nr = 0;
  };

  base::Mutex mu;
  absl::flat_hash_map<std::string, Stream> streams ABSL_GUARDED_BY(mu);
  // Each id once, in the order it got its first highest sequence number
  // (its first event stored, or a rejected write): what the persistence-ids
  // queries read by position, the live one up to the end at each Pull.
  std::vector<std::string> persistence_ids ABSL_GUARDED_BY(mu);
  // Per tag, its events by offset.
  absl::flat_hash_map<std::string, std::map<int64_t, TagEntry>> tags
      ABSL_GUARDED_BY(mu);
  // The last tag offset given (0: none yet), for every tag: the next
  // tagged event gets the one after it.
  int64_t last_tag_offset ABSL_GUARDED_BY(mu) = 0;
  // Notified after each write call that stored or rejected something and
  // after each delete, before their callbacks run.
  plugin_support::CommitNotifier notifier;
};

// The event `stored` of `persistence_id` as a replay delivers it; not OK
// (naming the id and sequence number) if its payload cannot be decoded.
absl::StatusOr<PersistentRepr> DecodeStoredEvent(
    const serialization::SerializationRegistry& registry,
    const std::string& persistence_id,
    const InMemoryStore::StoredEvent& stored);

// The in-memory journal (see journal.h for the contract): the RocksDB
// journal's semantics without the disk. Events are kept serialized, so
// serialization failures are rejections and replays decode, as with the
// real store. Serialization runs on the calling thread; everything else,
// and every callback, on the journal's one thread, which alone changes the
// store.
//
// That thread runs the operations one at a time in submission order, so a
// read runs after every write and delete submitted before it: journal.h's
// read-after-write rule holds without tracking writes in flight (the
// RocksDB journal, which reads beside its writer, has to). Keep every
// operation on this one runner for that reason.
//
// Live queries: after a write call that stored or rejected something, and
// after a delete, the journal notifies the store's CommitNotifier (outside
// the store's lock, before the callback), so a waiting query reads again.
//
// Tags: every stored event with tags gets the next offset of the store's
// one counter, under the lock that stores the events of the whole call, so
// a query (NewReadJournal) sees all of a call's events or none.
class InMemoryJournal final : public Journal {
 public:
  explicit InMemoryJournal(
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~InMemoryJournal() override;

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
  // An InMemoryReadJournal over this journal's store; never fails.
  absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() override;

 private:
  using StoredEvent = InMemoryStore::StoredEvent;
  // One AtomicWrite that passed the checks of the calling thread; `events`
  // is empty if it was rejected.
  struct Accepted {
    std::string persistence_id;
    int64_t first = 0;
    int64_t last = 0;
    std::vector<StoredEvent> events;
  };

  // The three below read store_ on runner_'s thread without its lock: only
  // that thread writes it (see InMemoryStore). The analysis cannot know
  // which thread runs a function, hence ABSL_NO_THREAD_SAFETY_ANALYSIS.

  // journal.h's sequence rule for a whole call; runner_'s thread.
  absl::Status CheckSequence(const std::vector<Accepted>& writes) const
      ABSL_NO_THREAD_SAFETY_ANALYSIS;
  // Stores a whole call that passed the checks; runner_'s thread.
  void Store(std::vector<Accepted>& writes);

  // runner_'s thread.
  absl::Status Replay(const std::string& persistence_id, int64_t from,
                      int64_t to, int64_t max, ReplayCallback& on_event) const
      ABSL_NO_THREAD_SAFETY_ANALYSIS;
  // The highest sequence number of `persistence_id`; runner_'s thread.
  int64_t Highest(const std::string& persistence_id) const
      ABSL_NO_THREAD_SAFETY_ANALYSIS;

  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  // Changed on runner_'s thread only (see InMemoryStore).
  const std::shared_ptr<InMemoryStore> store_;
  // Declared last so that it is destroyed first, while the rest lives.
  base::TaskRunner runner_;
};

}  // namespace cairn::persistence::inmem_internal

#endif  // CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_JOURNAL_H_
