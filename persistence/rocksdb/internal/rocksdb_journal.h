#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_JOURNAL_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_JOURNAL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/group_commit.h"
#include "persistence/rocksdb/internal/stream_read_queue.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_support/in_flight_writes.h"
#include "serialization/serialization.h"

namespace cairn::persistence::rocksdb_internal {

// The RocksDB journal (see journal.h for the contract). Events are
// serialized and encoded on the calling thread, committed by the group
// commit writer thread (whose thread runs write and delete callbacks; a
// WriteMessagesNowOrLater may be committed and completed on its caller's
// thread instead), and
// read by a pool of reader threads (whose threads run replay and
// highest-sequence-number callbacks), so reads do not wait behind commits.
// The exception is a read of a stream with a write or delete in flight: it
// is held back until that completes (in_flight_writes.h). That is
// journal.h's read-after-write rule, which reading beside the writer would
// otherwise break.
class RocksDbJournal final : public Journal {
 public:
  // `db` must be attached to this journal (Db::AttachJournal returned
  // true); the journal detaches it when destroyed.
  RocksDbJournal(
      std::shared_ptr<Db> db,
      std::shared_ptr<const serialization::SerializationRegistry> registry);
  ~RocksDbJournal() override;

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override;
  // Committed on the calling thread when the writer is idle and fsync is
  // off (GroupCommitWriter::CommitNowOrSubmit).
  void WriteMessagesNowOrLater(std::vector<AtomicWrite> writes,
                               WriteCallback done) override;
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event, DoneCallback done) override;
  // The payloads left serialized (StreamReadQueue::AddReplayPage).
  void AsyncReplayPage(std::string persistence_id, int64_t from_sequence_nr,
                       int64_t to_sequence_nr, int64_t max,
                       ReplayPageCallback done) override;
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override;
  // In one visit to the database, the snapshot too when `request.snapshots`
  // is the RocksDbSnapshotStore on it (StreamReadQueue::AddRecovery);
  // otherwise Journal's default.
  void AsyncStartRecovery(RecoveryStartRequest request, ReplayCallback on_event,
                          RecoveryStartCallback done) override;
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override;
  // A RocksDbReadJournal on this journal's database.
  absl::StatusOr<std::unique_ptr<ReadJournal>> NewReadJournal() override;

  // For tests: batches committed so far.
  int64_t commits() const { return writer_.commits(); }
  // For tests: returns once the writer is idle (nothing queued or being
  // committed), so that the next WriteMessagesNowOrLater commits inline.
  void WaitUntilWriterIdle() { writer_.WaitUntilIdle(); }

 private:
  // `writes` encoded (on the calling thread), for the writer; `done` runs
  // once the writer completed them.
  PendingWrite Prepare(std::vector<AtomicWrite> writes, WriteCallback done);

  // Holds the database's journal slot; declared first so that it is
  // released last, when this journal's threads are gone.
  struct Attachment {
    explicit Attachment(std::shared_ptr<Db> db) : db(std::move(db)) {}
    ~Attachment() { db->DetachJournal(); }
    const std::shared_ptr<Db> db;
  };

  const Attachment attachment_;
  Db& db_;
  const std::shared_ptr<const serialization::SerializationRegistry> registry_;
  // Outlives in_flight_, whose End queues the reads it held here.
  StreamReadQueue reads_;
  // Outlives the writer, which ends the writes it tracks (the deletes end
  // from their callbacks).
  plugin_support::InFlightWrites in_flight_;
  // Declared last so that it is destroyed first: writes still queued commit
  // before the readers stop.
  GroupCommitWriter writer_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_JOURNAL_H_
