#ifndef CAIRN_PERSISTENCE_STORAGE_READ_JOURNAL_H_
#define CAIRN_PERSISTENCE_STORAGE_READ_JOURNAL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "serialization/payload.h"

namespace cairn::persistence {

// One event as a query delivers it (Akka's EventEnvelope).
struct EventEnvelope {
  // Where the event is in the query's order: its tag offset for a query
  // by tag (the same for every tag of the event), its sequence number for
  // a query by persistence id. A query from `offset` delivers the events
  // after it, so a consumer stores the last offset it handled and resumes
  // from there.
  int64_t offset = 0;
  std::string persistence_id;
  int64_t sequence_nr = 0;
  serialization::Payload event;  // through the journal plugin's event adapters
  int64_t timestamp = 0;         // as the writer stored it (ms since the epoch)
  std::vector<std::string> tags;
  // What the event adapter that stored the event gave as its manifest
  // (PersistentRepr::adapter_manifest); read by the read-side adapters.
  std::string adapter_manifest;
};

// The elements of a query, read as the consumer asks for them (a pull
// stream with demand): nothing is read before the first Pull, and a Pull
// reads at most `max` elements, so a slow consumer makes the query wait and
// nothing buffers without bound.
//
// Thread safety: one Pull at a time (the next one after the previous
// one's callback ran); `done` runs on a thread of the plugin, never inside
// Pull, and under no lock of the plugin, so it may Pull again. Destroying
// the stream while a Pull is in flight is allowed: its callback still runs
// once (with whatever it read, or an error).
template <typename T>
class QueryStream {
 public:
  struct Batch {
    // In the query's order; none repeats an element of an earlier batch.
    std::vector<T> elements;
    // True: the query has delivered everything (a current query that
    // reached what was stored when it started); no Pull may follow.
    bool complete = false;
  };
  using PullCallback = absl::AnyInvocable<void(absl::StatusOr<Batch>) &&>;

  virtual ~QueryStream() = default;

  // Reads up to `max` (> 0) next elements. The batch has at least one
  // element, or is complete. A Pull after completion (FailedPrecondition),
  // after an error (that error again) or with `max` 0 (InvalidArgument)
  // fails. Not OK
  // (the query is then over): a record
  // that cannot be read (DataLoss, NotFound, naming the persistence id and
  // sequence number, as a replay), an event adapter's failure, or the
  // store failed (Unavailable).
  virtual void Pull(std::size_t max, PullCallback done) = 0;
};

// The queries of one journal plugin (Akka's ReadJournal with its current
// queries). Each query is a QueryStream; what it delivers is what was
// stored when the query was made (Akka's "current" queries), and it
// completes after that.
//
// Ordering: by persistence id, strictly ascending sequence numbers, deleted
// events skipped. By tag, strictly ascending offsets: offsets are given at
// commit, from one counter per store, in the order the writes commit, so
// an offset a query has seen is never followed by a lower one committed
// later, and no event is skipped when writes of different actors
// interleave.
//
// Life cycle and thread safety: a ReadJournal shares what it reads with
// the journal, and may outlive it. Its streams must not be pulled once the
// ReadJournal's destructor has started (destroying one is always safe);
// that destructor completes the Pulls in flight. Every method may be
// called from any thread.
class ReadJournal {
 public:
  virtual ~ReadJournal() = default;

  // Every persistence id with a highest sequence number (journal.h): an
  // event stored, also if deleted since, or a rejected write that used its
  // numbers. Each once, in no particular order; none created after the
  // first Pull. The plugins list them in the order the ids were created
  // (their id log, below), RocksDB in key order on a store without one.
  virtual std::unique_ptr<QueryStream<std::string>> CurrentPersistenceIds() = 0;

  // The stored events of `persistence_id` with from <= sequence_nr <= to,
  // ascending.
  virtual std::unique_ptr<QueryStream<EventEnvelope>>
  CurrentEventsByPersistenceId(std::string persistence_id,
                               int64_t from_sequence_nr,
                               int64_t to_sequence_nr) = 0;

  // The stored events tagged `tag` with an offset above `offset` (0: from
  // the first), ascending by offset. An event's tags are indexed in the
  // same atomic write as the event: a query sees all of an AtomicWrite or
  // none of it. Offsets start at 1, only grow and never repeat, also
  // across restarts and deletes of events.
  virtual std::unique_ptr<QueryStream<EventEnvelope>> CurrentEventsByTag(
      std::string tag, int64_t offset) = 0;

  // The live queries (Akka's PersistenceIds, EventsByPersistenceId and
  // EventsByTag): the same elements as the current ones, but they do not
  // end at what was stored at the first Pull. Once a live query has
  // delivered everything stored, its next Pull waits for the next commit
  // of this store's journal (the journal tells its read journals of each
  // commit; nothing polls), reads again, and delivers what the commit
  // added, or waits again. EventsByPersistenceId completes once the
  // stream's highest sequence number reached `to_sequence_nr` and every
  // stored event up to it is delivered; PersistenceIds and EventsByTag
  // never complete.
  // Destroying a stream whose Pull waits completes that Pull with
  // Cancelled; so does destroying the ReadJournal.

  // Every persistence id as CurrentPersistenceIds, then each id that gets
  // its first highest sequence number later (its first event stored, or a
  // rejected write that used its numbers), once each; never completes. The
  // plugins deliver ids in the order they got their first highest sequence
  // number, from a log of ids kept in the same writes (docs/QUERIES.md),
  // so the query holds no set of the ids it delivered. RocksDB: on a
  // read-only or secondary open of a store without that log (written by an
  // older build, with no read-write journal made on it since), the current
  // ids, then a Pull fails with FailedPrecondition naming the column family
  // of the log.
  virtual std::unique_ptr<QueryStream<std::string>> PersistenceIds() = 0;

  virtual std::unique_ptr<QueryStream<EventEnvelope>> EventsByPersistenceId(
      std::string persistence_id, int64_t from_sequence_nr,
      int64_t to_sequence_nr) = 0;
  virtual std::unique_ptr<QueryStream<EventEnvelope>> EventsByTag(
      std::string tag, int64_t offset) = 0;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_READ_JOURNAL_H_
