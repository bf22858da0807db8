#ifndef CAIRN_PERSISTENCE_STORAGE_COLLECT_QUERY_H_
#define CAIRN_PERSISTENCE_STORAGE_COLLECT_QUERY_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "persistence/storage/read_journal.h"

namespace cairn::persistence {

// Every element of a current query, read to its end (Akka's
// `runWith(Sink.seq)`), for code that is not an actor: main(), a command
// line tool, a test.
//
//   absl::StatusOr<ReadJournal*> queries =
//       PersistenceQuery::Get(system).ReadJournalFor("");
//   auto stream = (*queries)->CurrentEventsByTag("deposits", 0);
//   absl::StatusOr<std::vector<EventEnvelope>> all =
//       CollectAll(*stream, absl::Seconds(10));
//
// Pulls `max_batch` (> 0) elements at a time until the query completes,
// within `timeout` in all (absl::InfiniteDuration(): no limit). Holds every
// element in memory: for a query of unknown size, Pull batches or use a
// QuerySource instead.
//
// Returns the elements in the query's order, or:
// - DeadlineExceeded when the query has not completed within `timeout`
//   (a live query never completes: it always ends so), naming how many
//   elements had come. A Pull may still be in flight then: destroy the
//   stream (allowed, read_journal.h) rather than pull it again.
// - the query's error (read_journal.h: DataLoss, NotFound, Unavailable...),
//   its code kept and its message saying how many elements came before;
//   the elements read are dropped.
// - InvalidArgument for `max_batch` 0; Internal for a plugin that breaks
//   the QueryStream contract (a batch larger than asked for, or empty and
//   not complete).
//
// Blocks the calling thread until then. Not from inside an actor: it would
// hold the actor's thread (and its dispatcher's) for the whole query; an
// actor reads a query through a QuerySource (persistence/query_source.h).
// Never from a Pull's callback: that thread would wait for itself.
// Thread safety: any other thread; the stream's own rule holds (one
// consumer at a time).
template <typename T>
absl::StatusOr<std::vector<T>> CollectAll(QueryStream<T>& stream,
                                          absl::Duration timeout,
                                          std::size_t max_batch = 500);

// --- Implementation ----------------------------------------------------------

namespace storage_internal {

// One Pull's outcome, handed from the plugin's thread to the waiting one;
// shared with the callback, which may run after the waiter gave up.
template <typename T>
class PulledBatch {
 public:
  using Outcome = absl::StatusOr<typename QueryStream<T>::Batch>;

  void Set(Outcome outcome) {
    base::MutexLock lock(&mu_);
    outcome_ = std::move(outcome);
    ready_.SignalAll();
  }
  // The outcome, or nullopt if none came by `deadline`.
  std::optional<Outcome> WaitUntil(absl::Time deadline) {
    base::MutexLock lock(&mu_);
    while (!outcome_.has_value()) {
      if (ready_.WaitWithDeadline(&mu_, deadline)) break;
    }
    return std::move(outcome_);
  }

 private:
  base::Mutex mu_;
  base::CondVar ready_;
  std::optional<Outcome> outcome_ ABSL_GUARDED_BY(mu_);
};

}  // namespace storage_internal

template <typename T>
absl::StatusOr<std::vector<T>> CollectAll(QueryStream<T>& stream,
                                          absl::Duration timeout,
                                          std::size_t max_batch) {
  if (max_batch == 0) {
    return absl::InvalidArgumentError("CollectAll: max_batch must be > 0");
  }
  const absl::Time deadline = timeout == absl::InfiniteDuration()
                                  ? absl::InfiniteFuture()
                                  : absl::Now() + timeout;
  std::vector<T> all;
  for (;;) {
    auto pulled = std::make_shared<storage_internal::PulledBatch<T>>();
    stream.Pull(
        max_batch,
        [pulled](typename storage_internal::PulledBatch<T>::Outcome batch) {
          pulled->Set(std::move(batch));
        });
    std::optional<typename storage_internal::PulledBatch<T>::Outcome> batch =
        pulled->WaitUntil(deadline);
    if (!batch.has_value()) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the query did not complete within ", absl::FormatDuration(timeout),
          " (", all.size(), " elements came; a live query never completes)"));
    }
    if (!batch->ok()) {
      return absl::Status(
          batch->status().code(),
          absl::StrCat("the query failed after ", all.size(),
                       " elements: ", batch->status().message()));
    }
    if ((*batch)->elements.size() > max_batch ||
        ((*batch)->elements.empty() && !(*batch)->complete)) {
      return absl::InternalError(absl::StrCat(
          "the query's plugin broke the QueryStream contract: a batch of ",
          (*batch)->elements.size(), " elements (asked for at most ", max_batch,
          ")", (*batch)->complete ? "" : ", not complete"));
    }
    for (T& e : (*batch)->elements) all.push_back(std::move(e));
    if ((*batch)->complete) return all;
  }
}

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_COLLECT_QUERY_H_
