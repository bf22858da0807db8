#ifndef CAIRN_EXAMPLES_PLUGIN_EXAMPLE_JOURNAL_H_
#define CAIRN_EXAMPLES_PLUGIN_EXAMPLE_JOURNAL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/task_runner.h"
#include "persistence/storage/journal.h"
#include "serialization/serialization.h"

namespace cairn::examples::plugin {

// What the journal's config block sets (reference.conf,
// example.persistence.journal).
struct ExampleJournalSettings {
  // The most events the journal keeps, over every persistence id; deleted
  // events do not count. A write call that would go past it fails as a
  // whole (ResourceExhausted) and stores nothing.
  int64_t max_events = 1'000'000;
};

// A journal kept in memory behind one worker thread: the example plugin of
// docs/WRITING_A_PLUGIN.md. Everything it stores is lost with it.
//
// How it keeps journal.h's threading contract: every method only posts a
// task to `worker_` and returns. The worker runs the tasks one at a time in
// the order they were posted, so writes and deletes are applied and
// completed in submission order, and a read runs after every write and
// delete submitted before it (read after write) without tracking anything.
// Only the worker touches the streams, so there is no lock, and a callback
// (run by the worker, at the end of its task) is never run under one. The
// destructor destroys `worker_` first, which runs every task posted before
// it returns: each submitted operation gets its final callback.
//
// Events are kept serialized, as a real store keeps them: an event that
// cannot be serialized is a rejection, and one that cannot be decoded
// fails the replay that reaches it.
class ExampleJournal final : public persistence::Journal {
 public:
  // `serialization` must not be null.
  ExampleJournal(
      std::shared_ptr<const serialization::SerializationRegistry> serialization,
      ExampleJournalSettings settings);
  ~ExampleJournal() override;

  void AsyncWriteMessages(std::vector<persistence::AtomicWrite> writes,
                          WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override;
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<persistence::WriteFence> fence,
                             DoneCallback done) override;
  // No queries: NewReadJournal keeps Journal's Unimplemented.

 private:
  struct StoredEvent {
    serialization::SerializedPayload payload;
    std::string adapter_manifest;
    std::string writer_uuid;
    int64_t timestamp = 0;
    std::vector<std::string> tags;
  };
  struct Stream {
    std::map<int64_t, StoredEvent> events;  // by sequence number
    int64_t highest = 0;  // kept when events are deleted; counts rejections
  };

  // The worker's side of each operation.
  absl::StatusOr<std::vector<absl::Status>> Write(
      std::vector<persistence::AtomicWrite>& writes);
  absl::Status Replay(const std::string& persistence_id, int64_t from,
                      int64_t to, int64_t max, ReplayCallback& on_event) const;
  int64_t Highest(const std::string& persistence_id) const;

  const std::shared_ptr<const serialization::SerializationRegistry>
      serialization_;
  const ExampleJournalSettings settings_;
  // The worker's alone.
  absl::flat_hash_map<std::string, Stream> streams_;
  int64_t stored_events_ = 0;
  // Declared last, so destroyed first: it runs the tasks already posted
  // while everything they use still exists.
  base::TaskRunner worker_;
};

}  // namespace cairn::examples::plugin

#endif  // CAIRN_EXAMPLES_PLUGIN_EXAMPLE_JOURNAL_H_
