#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_SYNC_CALLS_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_SYNC_CALLS_H_

// Blocking wrappers around the asynchronous Journal and SnapshotStore calls,
// for tests. Each waits for the callback up to kCallDeadline and returns
// DeadlineExceeded if it does not come (a hung plugin fails the test rather
// than hanging it); a late callback is then harmless.

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"

namespace cairn::persistence::testing {

inline constexpr absl::Duration kCallDeadline = absl::Seconds(60);

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

absl::StatusOr<int64_t> ReadHighestSequenceNr(
    Journal& journal, const std::string& persistence_id);
absl::Status DeleteMessagesTo(Journal& journal,
                              const std::string& persistence_id, int64_t to);

absl::StatusOr<LoadSnapshotResult> LoadSnapshot(
    SnapshotStore& store, const std::string& persistence_id,
    SnapshotSelectionCriteria criteria, int64_t to_sequence_nr);
absl::Status SaveSnapshot(SnapshotStore& store, SnapshotMetadata metadata,
                          Payload snapshot);
absl::Status DeleteSnapshot(SnapshotStore& store, SnapshotMetadata metadata);
absl::Status DeleteSnapshots(SnapshotStore& store,
                             const std::string& persistence_id,
                             SnapshotSelectionCriteria criteria);

// An event with writer "writer-1" and timestamp 1000 * sequence_nr.
PersistentRepr Event(const std::string& persistence_id, int64_t sequence_nr,
                     Payload payload);
// One AtomicWrite of one Event.
AtomicWrite Single(const std::string& persistence_id, int64_t sequence_nr,
                   Payload payload);

// The std::string payloads of `events` (empty strings for other types).
std::vector<std::string> Texts(const std::vector<PersistentRepr>& events);
std::vector<int64_t> SequenceNrs(const std::vector<PersistentRepr>& events);

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_SYNC_CALLS_H_
