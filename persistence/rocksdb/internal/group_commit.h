#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_GROUP_COMMIT_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_GROUP_COMMIT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "flatbuffers/flatbuffers.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_support/in_flight_writes.h"

namespace cairn::persistence::rocksdb_internal {

// One key and its encoded value, ready for a WriteBatch: where they lie in
// their PendingWrite's `bytes`, the key first.
struct EncodedRecord {
  size_t offset = 0;
  size_t key_size = 0;
  size_t value_size = 0;
  // Indexed under each (TagKey), with the next tag offset, in the batch
  // that stores the record.
  std::vector<std::string> tags;
};

// The sequence numbers one AtomicWrite takes in its stream.
struct SequenceClaim {
  std::string persistence_id;
  int64_t first = 0;
  int64_t last = 0;
};

// A journal write, encoded by its caller: `records[i]` holds the events of
// AtomicWrite i, or nothing if `per_write[i]` rejected it; `claims[i]` its
// sequence numbers, rejected or not. If `failed` is not OK the caller
// found the call malformed: nothing is written and it completes with
// `failed`, in its turn. The usual call, one AtomicWrite of one event,
// is inline.
//
// Every record of the call is encoded into the one buffer `bytes`: one
// allocation per call rather than per event, and one free on the writer's
// thread, where a free per event went back, contended, to the allocator
// of the thread that encoded it (issue 35).
struct PendingWrite {
  std::string bytes;
  absl::InlinedVector<absl::InlinedVector<EncodedRecord, 1>, 1> records;
  std::vector<absl::Status> per_write;
  absl::InlinedVector<SequenceClaim, 1> claims;
  // The manifest numbers its events use whose entries may not be stored
  // yet (ManifestTable): they go into the batch that stores the events.
  std::vector<uint64_t> manifests;
  absl::Status failed;
  // Its records' bytes and their framing, for the batch's reservation.
  size_t encoded_bytes = 0;
  // The ids whose reads this write holds back (InFlightWrites::Begin), and
  // its ticket there: the writer ends them once the commit is over.
  absl::InlinedVector<std::string, 1> held_ids;
  plugin_support::InFlightWrites::Ticket held_ticket = 0;
  Journal::WriteCallback done;

  std::string_view Key(const EncodedRecord& record) const {
    return std::string_view(bytes).substr(record.offset, record.key_size);
  }
  std::string_view Value(const EncodedRecord& record) const {
    return std::string_view(bytes).substr(record.offset + record.key_size,
                                          record.value_size);
  }
};

struct PendingDelete {
  std::string persistence_id;
  int64_t to_sequence_nr = 0;
  Journal::DoneCallback done;
};

// The journal's writer thread: group commit. Callers submit writes and
// deletes; the thread takes everything submitted while the previous commit
// ran and commits it as one WriteBatch, so a commit (and its fsync) is
// shared by every caller waiting at that moment and the batch grows with
// the load. A delete ends the batch being gathered (it reads the highest
// sequence number, which must include the writes before it) and is
// committed alone.
//
// Writes and deletes are committed, and their callbacks run (after the
// commit, under no lock, by the committer: the writer thread, or the
// caller of CommitNowOrSubmit, below), in submission order.
//
// The writer enforces journal.h's sequence rule: a write whose first
// sequence number does not follow its stream's highest (counting the
// writes committed before it and those earlier in its batch) fails alone,
// and the rest of the batch is committed. A rejected write's numbers count
// as used: its stream's metadata records them as the highest. The writer
// is the database's only writer (Db::AttachJournal), so it remembers the
// highest of the streams it wrote lately instead of reading them again.
//
// A write may also be committed on its caller's thread
// (CommitNowOrSubmit), when nothing is queued or being committed and the
// store takes it without waiting: then no thread hands it over, which is
// most of the time a lone actor's Persist takes (issue 35). Whoever commits
// (the writer thread or such a caller) holds the committer's role
// (`committing_`), which is what orders commits and guards the
// committer's state below.
//
// Thread safety: Submit and CommitNowOrSubmit may be called from any
// thread, also from a callback. The destructor commits everything
// submitted, waits for a caller's commit in progress, then joins.
class GroupCommitWriter {
 public:
  // `in_flight` holds the reads behind the writes (PendingWrite::held_ids)
  // and must outlive the writer: once a commit is over (stored or failed),
  // its writes end there under one lock, before their callbacks run.
  GroupCommitWriter(std::shared_ptr<Db> db,
                    plugin_support::InFlightWrites& in_flight);
  ~GroupCommitWriter();
  GroupCommitWriter(const GroupCommitWriter&) = delete;
  GroupCommitWriter& operator=(const GroupCommitWriter&) = delete;

  void Submit(std::variant<PendingWrite, PendingDelete> request);
  // Commits `write` on the calling thread, and runs its callback there
  // before returning, if nothing is queued or being committed and the
  // store takes it without waiting (Db::WriteWithoutWaiting); else submits
  // it as Submit does. For a caller whose callback may run inline.
  void CommitNowOrSubmit(PendingWrite write);

  // Batches handed to rocksdb::DB::Write so far, for tests.
  int64_t commits() const { return commits_.load(); }
  // For tests: returns once nothing is queued or being committed (the
  // callbacks of what was have run).
  void WaitUntilIdle();

 private:
  using Request = std::variant<PendingWrite, PendingDelete>;

  void Run();
  void Process(std::vector<Request>& group);
  // Commits the writes group[begin, end) as one batch and completes them.
  // With `without_waiting`, only if the store takes the batch at once:
  // false if it would wait (then nothing is written or completed).
  bool CommitWrites(std::vector<Request>& group, size_t begin, size_t end,
                    bool without_waiting = false);
  void CommitDelete(PendingDelete& request);
  // The highest sequence number of `persistence_id`, as committed.
  absl::StatusOr<int64_t> KnownHighest(const Db::View& view,
                                       const std::string& persistence_id);
  // Whether `write`'s claims follow their streams' highest: in
  // `batch_highest` (as the batch so far leaves them), else as committed.
  absl::Status CheckClaims(
      const Db::View& view, const PendingWrite& write,
      const absl::flat_hash_map<std::string, int64_t>& batch_highest);
  // Adds a checked write to `batch`: its events, or for a rejected write
  // the metadata that uses its numbers up; and its claims to
  // `batch_highest`. Not OK only if the batch cannot be built.
  // Each tagged event gets the next offset after `tag_offset` (which it
  // advances) and an entry per tag.
  // A claim that starts at 1 gives its stream its first highest sequence
  // number: the id gets the next id offset after `id_offset` (which it
  // advances) and its entry in the id log.
  absl::Status AddToBatch(
      const Db::View& view, const PendingWrite& write,
      rocksdb::WriteBatch& batch,
      absl::flat_hash_map<std::string, int64_t>& batch_highest,
      int64_t& tag_offset, int64_t& id_offset);
  // The highest tag offset committed: highest_tag_offset_, read from the
  // store the first time and after a failed commit.
  absl::StatusOr<int64_t> HighestTagOffset(const Db::View& view);
  // The same for the highest id offset (highest_id_offset_). The id log
  // must be there (EnsureIdLog ran): FailedPrecondition otherwise.
  absl::StatusOr<int64_t> HighestIdOffset(const Db::View& view);

  const std::shared_ptr<Db> db_;
  plugin_support::InFlightWrites& in_flight_;
  base::Mutex mu_;
  base::CondVar ready_;
  // committing_ became false; signalled only while a test waits on it.
  base::CondVar idle_;
  int idle_waiters_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<Request> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool parked_ ABSL_GUARDED_BY(mu_) = false;  // waiting on ready_
  // Someone (the writer thread, or a caller of CommitNowOrSubmit) is
  // committing: the state below is theirs until they are done.
  bool committing_ ABSL_GUARDED_BY(mu_) = false;
  // queue_ is not empty; set under mu_, read without it while spinning.
  std::atomic<bool> queued_{false};
  std::atomic<int64_t> commits_{0};
  // The highest tag offset committed; -1 when not known (not read yet, or
  // after a failed commit). The committer's only.
  int64_t highest_tag_offset_ = -1;
  // The highest id offset committed, alike.
  int64_t highest_id_offset_ = -1;
  // The highest sequence number of streams written lately, as committed
  // (the committer's only). Bounded: cleared when it grows past a
  // limit, and after a failed commit, whose outcome is unknown.
  absl::flat_hash_map<std::string, int64_t> known_highest_;
  // CommitWrites' own, kept between commits for their capacity: each
  // write's outcome, and the streams' highest as the batch leaves them.
  std::vector<absl::Status> outcome_;
  absl::flat_hash_map<std::string, int64_t> batch_highest_;
  std::vector<plugin_support::InFlightWrites::Ended> ended_;
  std::thread thread_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_GROUP_COMMIT_H_
