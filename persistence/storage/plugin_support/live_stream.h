#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_LIVE_STREAM_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_LIVE_STREAM_H_

// The query-stream machine every journal plugin shares (docs/design/
// live_queries.md): a plugin writes one QueryCursor per query (where the
// query is, and how to read the next elements from there); a QueryHub per
// read journal turns cursors into read_journal.h's QueryStreams: demand,
// the Pull rules, parking a live Pull that is caught up, waking it on a
// commit (or a refresh interval), cancelling it when its stream or the
// read journal is destroyed, and the threads callbacks run on.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/task_runner.h"
#include "persistence/storage/plugin_support/commit_notifier.h"
#include "persistence/storage/read_journal.h"

namespace cairn::persistence::plugin_support {

// Where one query is, and how it reads on: what a plugin implements for
// each query it offers. The cursor owns its position (a tag offset, a
// sequence number, an id-log offset, a key) and, for a current query, the
// bound it noted at its first Next; the hub never looks inside.
//
// Thread safety: the hub calls Next on a thread of its executor, one call
// at a time per cursor (each after the previous one returned, with a
// happens-before edge between them), never under a lock of the hub. With
// more than one executor thread, Next calls of *different* cursors may run
// at once: what cursors share (a store, a connection pool, a registry)
// must allow that. A cursor is destroyed on whatever thread drops the last
// reference to its stream's state (an executor thread, or the thread that
// destroys the stream): its destructor must not block.
template <typename T>
class QueryCursor {
 public:
  using Batch = typename QueryStream<T>::Batch;

  virtual ~QueryCursor() = default;

  // Reads the next at most `max` (> 0) elements after the cursor's
  // position, in the query's order, and moves the position past them (and
  // past any entries it skipped, such as deleted events). The result:
  //   - elements, complete = false: more may follow; the hub delivers them.
  //   - elements or none, complete = true: the query has delivered
  //     everything (a current query reached its bound; EventsByPersistenceId
  //     reached `to`). Next is not called again.
  //   - no element, complete = false: the cursor is caught up: nothing is
  //     stored after its position now. A live query's Pull then parks until
  //     the next commit; a current query must never return this (the hub
  //     fails the Pull with Internal, naming the contract).
  // A cursor that stops early (a page limit, a scan budget spent on deleted
  // entries) returns what it has, or reads on: "no element" always means
  // "caught up", never "try again".
  // Not OK: the query is over; the hub delivers this error and repeats it
  // to any later Pull. Errors are as read_journal.h lists them (DataLoss or
  // NotFound naming the persistence id and sequence number, an adapter's
  // failure, Unavailable for the store).
  virtual absl::StatusOr<Batch> Next(std::size_t max) = 0;
};

// Whether a stream ends at what was stored at its first Pull (the cursor
// says when, by `complete`) or waits for commits once caught up.
enum class QueryMode { kCurrent, kLive };

struct QueryHubOptions {
  // Executor threads running every Next and every callback of the hub's
  // streams (at least 1). With 1, the Pulls of all streams run one at a
  // time, in the order posted; with more, different streams' Pulls overlap.
  int threads = 1;
  // Names the executor threads (at most 15 characters).
  std::string thread_name = "cairn-query";
  // A parked live Pull also reads again this long after it parked, to see
  // commits the notifier does not report (PostgreSQL: other processes).
  // Zero: only a commit wakes it. When positive the hub runs one more
  // thread, that sleeps until the earliest deadline.
  absl::Duration refresh_interval = absl::ZeroDuration();
};

namespace live_stream_internal {
class HubCore;  // the state streams, waiters and the timer share (.cc)
}  // namespace live_stream_internal

// The streams of one read journal: a plugin's ReadJournal owns one
// QueryHub and makes each query's stream with NewStream.
//
// What a stream does (read_journal.h's QueryStream contract):
//   - Pull(max, done) posts one read to the executor; `done` runs there,
//     never inside Pull and under no lock of the hub or the cursor, so it
//     may Pull again.
//   - A Pull after an error fails with that error again (a copy,
//     base::OwnCopy); after completion, FailedPrecondition; with `max` 0,
//     InvalidArgument. Checked in that order (the in-memory and PostgreSQL
//     order; RocksDB checked `max` first).
//   - A live Pull whose cursor is caught up parks: the hub reads the
//     notifier's generation before calling Next, and passes it to
//     CommitNotifier::Wait, so a commit during Next wakes it at once. A
//     wake (commit or refresh deadline) posts one retry, which calls Next
//     with the parked Pull's `max`; caught up again, it parks again. The
//     callback runs once, with elements, completion, an error or Cancelled.
//   - Destroying a stream completes its parked Pull with Cancelled (posted
//     to the executor, never run inside the destructor); a Pull of it still
//     queued reads, and completes with Cancelled instead of parking.
//     Destroying a stream is safe at any time, also after its hub is gone,
//     and with a Pull in flight (its callback still runs once).
//
// Ordering: one stream's Pulls run one after another (the contract allows
// one at a time), so its batches come in the cursor's order; the hub adds
// no order across streams.
//
// Life cycle: the destructor (1) stops taking new parks and completes every
// parked Pull with Cancelled, (2) stops the refresh timer, (3) runs what was
// posted to the executor, callbacks included (Pulls they make during this
// are still run; one that would park completes with Cancelled), and joins
// its threads. Streams must not be pulled from outside once it started
// (read_journal.h). A plugin declares its QueryHub after what its cursors
// use from the read journal, so that the hub is destroyed first. The hub
// must not be destroyed on one of its executor threads (from a callback):
// it joins them.
//
// Thread safety: NewStream and the destructor from any thread; the streams
// as read_journal.h says. Lock order: the hub's lock, then the notifier's
// or the executor's; the notifier's waiters take the hub's lock only, and
// only post.
class QueryHub {
 public:
  // `commits` wakes parked live Pulls; null: only the refresh interval (if
  // any) and cancellation end a park. The hub keeps it alive; a plugin
  // whose notifier is a member of something shared passes an aliasing
  // shared_ptr (std::shared_ptr<CommitNotifier>(store, &store->notifier)).
  // The notifier's waiters hold the hub weakly: nothing the hub owns keeps
  // itself alive through them.
  QueryHub(QueryHubOptions options, std::shared_ptr<CommitNotifier> commits);
  ~QueryHub();
  QueryHub(const QueryHub&) = delete;
  QueryHub& operator=(const QueryHub&) = delete;

  // A stream over `cursor` (not null). Nothing is read before its first
  // Pull. T is std::string (persistence ids) or EventEnvelope: the .cc
  // file instantiates those two.
  template <typename T>
  std::unique_ptr<QueryStream<T>> NewStream(
      std::unique_ptr<QueryCursor<T>> cursor, QueryMode mode);

  // Pulls parked now (for tests and metrics).
  std::size_t ParkedForTesting() const;

 private:
  // Retries the parked Pulls whose refresh deadline passed.
  void RunTimer();

  const std::shared_ptr<live_stream_internal::HubCore> core_;
  std::thread timer_;  // only with a positive refresh interval
  // Last: destroyed (drained) first. Reset by the destructor before the
  // core is told the executor is gone.
  std::optional<base::TaskRunner> executor_;
};

extern template std::unique_ptr<QueryStream<std::string>>
QueryHub::NewStream<std::string>(
    std::unique_ptr<QueryCursor<std::string>> cursor, QueryMode mode);
extern template std::unique_ptr<QueryStream<EventEnvelope>>
QueryHub::NewStream<EventEnvelope>(
    std::unique_ptr<QueryCursor<EventEnvelope>> cursor, QueryMode mode);

}  // namespace cairn::persistence::plugin_support

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_LIVE_STREAM_H_
