#ifndef CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_JOURNAL_H_
#define CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_JOURNAL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_support/task_runner.h"
#include "persistence/storage/serialization.h"

namespace cairn::persistence::internal {

// The in-memory journal (see journal.h for the contract): the RocksDB
// journal's semantics without the disk. Events are kept serialized, so
// serialization failures are rejections and replays decode, as with the
// real store. Serialization runs on the calling thread; everything else,
// and every callback, on the journal's one thread, which alone touches the
// streams (so they need no lock).
//
// That thread runs the operations one at a time in submission order, so a
// read runs after every write and delete submitted before it: journal.h's
// read-after-write rule holds without tracking writes in flight (the
// RocksDB journal, which reads beside its writer, has to). Keep every
// operation on this one runner for that reason.
class InMemoryJournal final : public Journal {
 public:
  explicit InMemoryJournal(
      std::shared_ptr<const SerializationRegistry> registry);
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
                             DoneCallback done) override;

 private:
  struct StoredEvent {
    int64_t sequence_nr = 0;
    SerializedPayload payload;
    std::string adapter_manifest;
    std::string writer_uuid;
    int64_t timestamp = 0;
    std::vector<std::string> tags;
  };
  struct Stream {
    std::map<int64_t, StoredEvent> events;
    int64_t highest = 0;  // kept when events are deleted; counts rejections
  };
  // One AtomicWrite that passed the checks of the calling thread; `events`
  // is empty if it was rejected.
  struct Accepted {
    std::string persistence_id;
    int64_t first = 0;
    int64_t last = 0;
    std::vector<StoredEvent> events;
  };

  // journal.h's sequence rule for a whole call; runner_'s thread.
  absl::Status CheckSequence(const std::vector<Accepted>& writes) const;

  absl::Status Replay(const std::string& persistence_id, int64_t from,
                      int64_t to, int64_t max, ReplayCallback& on_event) const;

  const std::shared_ptr<const SerializationRegistry> registry_;
  absl::flat_hash_map<std::string, Stream> streams_;  // runner_'s thread only
  // Declared last so that it is destroyed first, while streams_ lives.
  TaskRunner runner_;
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INMEM_INTERNAL_IN_MEMORY_JOURNAL_H_
