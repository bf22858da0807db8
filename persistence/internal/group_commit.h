#ifndef CAIRN_PERSISTENCE_INTERNAL_GROUP_COMMIT_H_
#define CAIRN_PERSISTENCE_INTERNAL_GROUP_COMMIT_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "flatbuffers/flatbuffers.h"
#include "persistence/internal/db.h"
#include "persistence/journal.h"

namespace cairn::persistence::internal {

// One key and its encoded value, ready for a WriteBatch.
struct EncodedRecord {
  std::string key;
  flatbuffers::DetachedBuffer value;
};

// A journal write, encoded by its caller: `records[i]` holds the events of
// AtomicWrite i, or nothing if `per_write[i]` rejected it.
struct PendingWrite {
  std::vector<std::vector<EncodedRecord>> records;
  std::vector<absl::Status> per_write;
  Journal::WriteCallback done;
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
// Writes and deletes are committed, and their callbacks run (on the writer
// thread, after the commit, under no lock), in submission order.
//
// Thread safety: Submit may be called from any thread, also from a
// callback. The destructor commits everything submitted, then joins.
class GroupCommitWriter {
 public:
  explicit GroupCommitWriter(std::shared_ptr<Db> db);
  ~GroupCommitWriter();
  GroupCommitWriter(const GroupCommitWriter&) = delete;
  GroupCommitWriter& operator=(const GroupCommitWriter&) = delete;

  void Submit(std::variant<PendingWrite, PendingDelete> request);

  // Batches handed to rocksdb::DB::Write so far, for tests.
  int64_t commits() const { return commits_.load(); }

 private:
  using Request = std::variant<PendingWrite, PendingDelete>;

  void Run();
  void Process(std::vector<Request>& group);
  // Commits the writes group[begin, end) as one batch and completes them.
  void CommitWrites(std::vector<Request>& group, size_t begin, size_t end);
  void CommitDelete(PendingDelete& request);

  const std::shared_ptr<Db> db_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::vector<Request> queue_;  // guarded by mu_
  bool stopping_ = false;       // guarded by mu_
  std::atomic<int64_t> commits_{0};
  std::thread thread_;
};

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_GROUP_COMMIT_H_
