#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_SYNC_CALLS_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_SYNC_CALLS_H_

// Blocking wrappers around the asynchronous Journal, SnapshotStore and
// DurableStateStore calls,
// for tests. Each waits for the callback up to kCallDeadline and returns
// DeadlineExceeded if it does not come (a hung plugin fails the test rather
// than hanging it); a late callback is then harmless.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "persistence/storage/collect_query.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/snapshot_store.h"

namespace cairn::persistence::testing {

inline constexpr absl::Duration kCallDeadline = absl::Seconds(60);

// One result handed from a plugin thread to the waiting test thread.
template <typename T>
class Slot {
 public:
  void Set(T value) {
    base::MutexLock lock(&mu_);
    value_ = std::move(value);
    ready_.SignalAll();
  }
  // The value, or nullopt if none came within kCallDeadline.
  std::optional<T> Wait() {
    const absl::Time deadline = absl::Now() + kCallDeadline;
    base::MutexLock lock(&mu_);
    while (!value_.has_value()) {
      if (ready_.WaitWithDeadline(&mu_, deadline)) break;
    }
    return std::move(value_);
  }

 private:
  base::Mutex mu_;
  base::CondVar ready_;
  std::optional<T> value_ ABSL_GUARDED_BY(mu_);
};

// Where a started Pull's outcome lands.
template <typename T>
using PullSlot = Slot<absl::StatusOr<typename QueryStream<T>::Batch>>;

// Starts a Pull of `stream`; its outcome lands in the slot returned (for a
// test that acts while the Pull waits).
template <typename T>
std::shared_ptr<PullSlot<T>> StartPull(QueryStream<T>& stream,
                                       std::size_t max) {
  auto slot = std::make_shared<PullSlot<T>>();
  stream.Pull(max, [slot](absl::StatusOr<typename QueryStream<T>::Batch> b) {
    slot->Set(std::move(b));
  });
  return slot;
}

// One Pull of `stream`, waited for.
template <typename T>
absl::StatusOr<typename QueryStream<T>::Batch> PullOnce(QueryStream<T>& stream,
                                                        std::size_t max) {
  auto batch = StartPull(stream, max)->Wait();
  if (!batch.has_value()) {
    return absl::DeadlineExceededError("the plugin did not call back in time");
  }
  return *std::move(batch);
}

// What a whole query delivers: Pulls of `max` until it completes, within
// kCallDeadline; CollectAll (collect_query.h) does it, with its errors.
// With `batch_sizes`, each batch's size goes there too (for the tests of
// the batches themselves), with the same checks of the contract.
template <typename T>
absl::StatusOr<std::vector<T>> PullAll(
    QueryStream<T>& stream, std::size_t max,
    std::vector<std::size_t>* batch_sizes = nullptr) {
  if (batch_sizes == nullptr) return CollectAll(stream, kCallDeadline, max);
  std::vector<T> all;
  for (;;) {
    absl::StatusOr<typename QueryStream<T>::Batch> batch =
        PullOnce(stream, max);
    if (!batch.ok()) return batch.status();
    if (batch->elements.size() > max) {
      return absl::InternalError("a batch larger than asked for");
    }
    if (batch->elements.empty() && !batch->complete) {
      return absl::InternalError("an empty batch that is not complete");
    }
    batch_sizes->push_back(batch->elements.size());
    for (T& e : batch->elements) all.push_back(std::move(e));
    if (batch->complete) return all;
  }
}

struct WriteOutcome {
  absl::Status batch;
  std::vector<absl::Status> per_write;
  std::thread::id callback_thread;
};
WriteOutcome WriteMessages(Journal& journal, std::vector<AtomicWrite> writes);

struct ReplayOutcome {
  std::vector<PersistentRepr> events;
  absl::Status status;
  std::thread::id callback_thread;
};
ReplayOutcome ReplayMessages(Journal& journal,
                             const std::string& persistence_id, int64_t from,
                             int64_t to, int64_t max);

// AsyncReplayPage, its page read (ReplayPage::ForEach) on the test's
// thread: `events` hold each event's sequence number and payload,
// `status` is the replay's, `read` ForEach's.
struct ReplayPageOutcome {
  std::vector<PersistentRepr> events;
  absl::Status status;
  absl::Status read;
};
ReplayPageOutcome ReplayPageOf(Journal& journal,
                               const std::string& persistence_id, int64_t from,
                               int64_t to, int64_t max);

absl::StatusOr<int64_t> ReadHighestSequenceNr(
    Journal& journal, const std::string& persistence_id);

struct RecoveryStartOutcome {
  RecoveryStart start;
  // The first page's events, if the journal read it (start.replay set).
  std::vector<PersistentRepr> events;
};
RecoveryStartOutcome StartRecovery(Journal& journal,
                                   RecoveryStartRequest request);
// DeleteMessagesTo, SaveSnapshot, DeleteSnapshot(s): with `fence` (none:
// unfenced).
absl::Status DeleteMessagesTo(Journal& journal,
                              const std::string& persistence_id, int64_t to,
                              std::optional<WriteFence> fence = std::nullopt);

absl::StatusOr<LoadSnapshotResult> LoadSnapshot(
    SnapshotStore& store, const std::string& persistence_id,
    SnapshotSelectionCriteria criteria, int64_t to_sequence_nr);
absl::Status SaveSnapshot(SnapshotStore& store, SnapshotMetadata metadata,
                          serialization::Payload snapshot,
                          std::optional<WriteFence> fence = std::nullopt);
absl::Status DeleteSnapshot(SnapshotStore& store, SnapshotMetadata metadata,
                            std::optional<WriteFence> fence = std::nullopt);
absl::Status DeleteSnapshots(SnapshotStore& store,
                             const std::string& persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence = std::nullopt);

// DurableStateStore's calls, blocking.
absl::StatusOr<DurableStateObject> GetObject(DurableStateStore& store,
                                             const std::string& persistence_id);
absl::Status UpsertObject(DurableStateStore& store,
                          const std::string& persistence_id, int64_t revision,
                          serialization::Payload value, std::string tag = "",
                          std::optional<WriteFence> fence = std::nullopt);
absl::Status DeleteObject(DurableStateStore& store,
                          const std::string& persistence_id, int64_t revision,
                          std::optional<WriteFence> fence = std::nullopt);
absl::StatusOr<std::vector<DurableStateChange>> CurrentChanges(
    DurableStateStore& store, const std::string& tag, int64_t after_offset,
    int64_t max);

// An event with writer "writer-1" and timestamp 1000 * sequence_nr.
PersistentRepr Event(const std::string& persistence_id, int64_t sequence_nr,
                     serialization::Payload payload);
// One AtomicWrite of one Event.
AtomicWrite Single(const std::string& persistence_id, int64_t sequence_nr,
                   serialization::Payload payload);

// The std::string payloads of `events` (empty strings for other types).
std::vector<std::string> Texts(const std::vector<PersistentRepr>& events);
std::vector<int64_t> SequenceNrs(const std::vector<PersistentRepr>& events);

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_SYNC_CALLS_H_
