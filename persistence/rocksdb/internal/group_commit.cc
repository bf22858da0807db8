#include "persistence/rocksdb/internal/group_commit.h"

#include <pthread.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/metadata_codec.h"
#include "persistence/rocksdb/internal/query_reads.h"
#include "persistence/rocksdb/internal/stream_reads.h"
#include "persistence/storage/plugin_support/atomic_write_check.h"

namespace cairn::persistence::rocksdb_internal {

using plugin_support::CheckFollows;

namespace {

// Streams whose highest sequence number the writer remembers, at most
// (about 100 bytes each).
constexpr size_t kMaxKnownHighest = 100'000;

// Yields before the writer parks (as an idle dispatcher thread does).
constexpr int kSpinRounds = 100;

}  // namespace

GroupCommitWriter::GroupCommitWriter(std::shared_ptr<Db> db,
                                     plugin_support::InFlightWrites& in_flight)
    : db_(std::move(db)), in_flight_(in_flight), thread_([this] { Run(); }) {
  pthread_setname_np(thread_.native_handle(), "cairn-jrnl-wr");
}

GroupCommitWriter::~GroupCommitWriter() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
  }
  ready_.Signal();
  thread_.join();
}

void GroupCommitWriter::Submit(Request request) {
  bool parked;
  {
    base::MutexLock lock(&mu_);
    queue_.push_back(std::move(request));
    queued_.store(true, std::memory_order_release);
    parked = parked_;
  }
  // A writer that is committing takes the queue when it is done, under
  // mu_: only a parked one needs waking (a futex call per write
  // otherwise, ~20% of a lone actor's Persist).
  if (parked) ready_.Signal();
}

void GroupCommitWriter::CommitNowOrSubmit(PendingWrite write) {
  {
    base::MutexLock lock(&mu_);
    if (committing_ || !queue_.empty() || stopping_) {
      queue_.push_back(std::move(write));
      queued_.store(true, std::memory_order_release);
      if (parked_) ready_.Signal();
      return;
    }
    committing_ = true;
  }
  std::vector<Request> group;
  group.push_back(std::move(write));
  const bool committed = CommitWrites(group, 0, 1, /*without_waiting=*/true);
  {
    base::MutexLock lock(&mu_);
    committing_ = false;
    if (!committed) {
      // Ahead of what came meanwhile, which was submitted after it.
      queue_.insert(queue_.begin(), std::move(group.front()));
      queued_.store(true, std::memory_order_release);
    }
    // The writer waits for the role while something is queued, or to stop.
    // Signalled under mu_: the writer may be gone once it is let go.
    if (parked_ && (!queue_.empty() || stopping_)) ready_.Signal();
    if (idle_waiters_ > 0) idle_.SignalAll();
  }
}

void GroupCommitWriter::WaitUntilIdle() {
  base::MutexLock lock(&mu_);
  ++idle_waiters_;
  while (committing_ || !queue_.empty()) idle_.Wait(&mu_);
  --idle_waiters_;
}

void GroupCommitWriter::Run() {
  std::vector<Request> group;
  while (true) {
    // A writer that waits a little before it parks finds the next write
    // of an actor that persists one event at a time (its reply, handler
    // and next Persist take a few microseconds) without a wake-up.
    for (int round = 0; round < kSpinRounds; ++round) {
      if (queued_.load(std::memory_order_acquire)) break;
      std::this_thread::yield();
    }
    {
      base::MutexLock lock(&mu_);
      parked_ = true;
      // A caller's commit in progress goes first: it was submitted first.
      while (committing_ || (!stopping_ && queue_.empty())) ready_.Wait(&mu_);
      parked_ = false;
      if (queue_.empty()) return;  // stopping, and everything is committed
      group.swap(queue_);
      queued_.store(false, std::memory_order_relaxed);
      committing_ = true;
    }
    Process(group);
    group.clear();
    base::MutexLock lock(&mu_);
    committing_ = false;
    if (idle_waiters_ > 0) idle_.SignalAll();
  }
}

void GroupCommitWriter::Process(std::vector<Request>& group) {
  size_t begin = 0;
  for (size_t i = 0; i < group.size(); ++i) {
    if (auto* request = std::get_if<PendingDelete>(&group[i])) {
      CommitWrites(group, begin, i);
      CommitDelete(*request);
      begin = i + 1;
    }
  }
  CommitWrites(group, begin, group.size());
}

bool GroupCommitWriter::CommitWrites(std::vector<Request>& group, size_t begin,
                                     size_t end, bool without_waiting) {
  if (begin == end) return true;
  // Each write's own outcome: OK, or why it alone was left out.
  std::vector<absl::Status>& outcome = outcome_;
  outcome.assign(end - begin, absl::OkStatus());
  absl::flat_hash_map<std::string, int64_t>& batch_highest = batch_highest_;
  batch_highest.clear();
  // What the batch will hold, about: a WriteBatch grown by doubling
  // copies itself a dozen times on the way to a large group.
  size_t reserve_bytes = 64;
  for (size_t i = begin; i < end; ++i) {
    reserve_bytes += std::get<PendingWrite>(group[i]).encoded_bytes;
  }
  int64_t tag_offset = -1;          // read when the first tagged event needs it
  int64_t id_offset = -1;           // read when the first new id needs it
  std::vector<uint64_t> manifests;  // entries added to the batch
  bool any = false;                 // the batch holds something
  auto build = [&](const Db::View& view, rocksdb::WriteBatch& batch) {
    for (size_t i = begin; i < end; ++i) {
      PendingWrite& write = std::get<PendingWrite>(group[i]);
      absl::Status& checked = outcome[i - begin];
      checked = write.failed.ok() ? CheckClaims(view, write, batch_highest)
                                  : write.failed;
      if (!checked.ok()) continue;  // it alone is left out
      absl::Status added =
          AddToBatch(view, write, batch, batch_highest, tag_offset, id_offset);
      if (!added.ok()) return added;
      for (uint64_t number : write.manifests) {
        added = view.manifests->AddEntry(view.names, number, batch);
        if (!added.ok()) return added;
        manifests.push_back(number);
      }
    }
    if (tag_offset >= 0) {
      rocksdb::Status put = batch.Put(view.tags, kHighestTagOffsetKey,
                                      EncodeTagOffset(tag_offset));
      if (!put.ok()) return FromRocksDb(put, "building a batch");
    }
    if (id_offset >= 0) {
      rocksdb::Status put =
          batch.Put(view.ids, kHighestIdOffsetKey, EncodeIdOffset(id_offset));
      if (!put.ok()) return FromRocksDb(put, "building a batch");
    }
    any = batch.Count() > 0;
    return absl::OkStatus();
  };
  absl::Status status;
  if (without_waiting) {
    bool would_wait = false;
    status = db_->WriteWithoutWaiting(build, &would_wait, reserve_bytes);
    if (would_wait) return false;
  } else {
    status = db_->Write(build, reserve_bytes);
  }
  if (any) commits_.fetch_add(1, std::memory_order_relaxed);
  if (status.ok()) {
    if (known_highest_.size() + batch_highest.size() > kMaxKnownHighest) {
      known_highest_.clear();
    }
    for (auto& [id, highest] : batch_highest) known_highest_[id] = highest;
    if (tag_offset >= 0) highest_tag_offset_ = tag_offset;
    if (id_offset >= 0) highest_id_offset_ = id_offset;
    if (!manifests.empty()) db_->manifests().MarkStored(manifests);
    db_->commits().Notify();
  } else {
    // Whether the batch is on disk is unknown: read again next time.
    known_highest_.clear();
    highest_tag_offset_ = -1;
    highest_id_offset_ = -1;
  }
  // Committed or failed: the reads these writes held may go, before the
  // callbacks, which they need not wait for. One lock for the commit.
  ended_.clear();
  for (size_t i = begin; i < end; ++i) {
    const PendingWrite& write = std::get<PendingWrite>(group[i]);
    if (!write.held_ids.empty()) {
      ended_.push_back({write.held_ids, write.held_ticket});
    }
  }
  if (!ended_.empty()) in_flight_.EndAll(ended_);
  for (size_t i = begin; i < end; ++i) {
    PendingWrite& write = std::get<PendingWrite>(group[i]);
    // Statuses of its own for each callback, and none kept here: the
    // callbacks hand them to other threads, and absl::Status's shared
    // reference count is invisible to ThreadSanitizer (absl is not
    // instrumented), which would report the last release as a race.
    absl::Status failed =
        base::OwnCopy(status.ok() ? outcome[i - begin] : status);
    if (failed.ok()) {
      std::move(write.done)(absl::OkStatus(), std::move(write.per_write));
    } else {
      std::vector<absl::Status> per_write(write.per_write.size(), failed);
      std::move(write.done)(std::move(failed), std::move(per_write));
    }
  }
  return true;
}

absl::StatusOr<int64_t> GroupCommitWriter::KnownHighest(
    const Db::View& view, const std::string& persistence_id) {
  auto known = known_highest_.find(persistence_id);
  if (known != known_highest_.end()) return known->second;
  return ReadHighestSequenceNr(view, persistence_id);
}

absl::Status GroupCommitWriter::CheckClaims(
    const Db::View& view, const PendingWrite& write,
    const absl::flat_hash_map<std::string, int64_t>& batch_highest) {
  absl::InlinedVector<std::pair<std::string_view, int64_t>, 2> claimed;
  for (const SequenceClaim& claim : write.claims) {
    int64_t highest = 0;
    auto in_batch = batch_highest.find(claim.persistence_id);
    auto in_write = std::find_if(
        claimed.rbegin(), claimed.rend(),
        [&](const auto& c) { return c.first == claim.persistence_id; });
    if (in_write != claimed.rend()) {
      highest = in_write->second;
    } else if (in_batch != batch_highest.end()) {
      highest = in_batch->second;
    } else {
      absl::StatusOr<int64_t> stored = KnownHighest(view, claim.persistence_id);
      if (!stored.ok()) return stored.status();
      highest = *stored;
    }
    absl::Status follows =
        CheckFollows(claim.persistence_id, highest, claim.first, claim.last);
    if (!follows.ok()) return follows;
    claimed.emplace_back(claim.persistence_id, claim.last);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> GroupCommitWriter::HighestTagOffset(
    const Db::View& view) {
  if (highest_tag_offset_ >= 0) return highest_tag_offset_;
  std::string value;
  rocksdb::Status got = view.db->Get(rocksdb::ReadOptions(), view.tags,
                                     kHighestTagOffsetKey, &value);
  if (got.IsNotFound()) return 0;
  if (!got.ok()) return FromRocksDb(got, "reading the highest tag offset");
  absl::StatusOr<int64_t> offset = DecodeTagOffset(value);
  if (offset.ok()) highest_tag_offset_ = *offset;
  return offset;
}

absl::StatusOr<int64_t> GroupCommitWriter::HighestIdOffset(
    const Db::View& view) {
  if (highest_id_offset_ >= 0) return highest_id_offset_;
  absl::StatusOr<std::optional<int64_t>> offset = ReadHighestIdOffset(view);
  if (!offset.ok()) return offset.status();
  if (!offset->has_value()) {
    return absl::FailedPreconditionError(
        "the store's id log is missing (it is made when the journal is)");
  }
  highest_id_offset_ = **offset;
  return highest_id_offset_;
}

absl::Status GroupCommitWriter::AddToBatch(
    const Db::View& view, const PendingWrite& write, rocksdb::WriteBatch& batch,
    absl::flat_hash_map<std::string, int64_t>& batch_highest,
    int64_t& tag_offset, int64_t& id_offset) {
  for (size_t w = 0; w < write.records.size(); ++w) {
    const SequenceClaim& claim = write.claims[w];
    batch_highest[claim.persistence_id] = claim.last;
    // Checked: `first` follows the stream's highest, so 1 means it had
    // none, and this write (stored or rejected) creates the id.
    if (claim.first == 1) {
      if (id_offset < 0) {
        absl::StatusOr<int64_t> highest = HighestIdOffset(view);
        if (!highest.ok()) return highest.status();
        id_offset = *highest;
      }
      rocksdb::Status put =
          batch.Put(view.ids, IdLogKey(++id_offset), claim.persistence_id);
      if (!put.ok()) return FromRocksDb(put, "building a batch");
    }
    if (!write.per_write[w].ok()) {
      // Rejected: no events, but the numbers are used up.
      flatbuffers::DetachedBuffer metadata = EncodeStreamMetadata(claim.last);
      rocksdb::Status put = batch.Put(
          view.metadata, StreamPrefix(claim.persistence_id),
          rocksdb::Slice(reinterpret_cast<const char*>(metadata.data()),
                         metadata.size()));
      if (!put.ok()) return FromRocksDb(put, "building a batch");
      continue;
    }
    for (const EncodedRecord& record : write.records[w]) {
      rocksdb::Status put =
          batch.Put(view.events, rocksdb::Slice(write.Key(record)),
                    rocksdb::Slice(write.Value(record)));
      if (!put.ok()) return FromRocksDb(put, "building a batch");
      if (record.tags.empty()) continue;
      if (tag_offset < 0) {
        absl::StatusOr<int64_t> highest = HighestTagOffset(view);
        if (!highest.ok()) return highest.status();
        tag_offset = *highest;
      }
      ++tag_offset;
      for (const std::string& tag : record.tags) {
        put = batch.Put(view.tags, TagKey(tag, tag_offset),
                        rocksdb::Slice(write.Key(record)));
        if (!put.ok()) return FromRocksDb(put, "building a batch");
      }
    }
  }
  return absl::OkStatus();
}

void GroupCommitWriter::CommitDelete(PendingDelete& request) {
  const std::string& id = request.persistence_id;
  absl::Status status =
      db_->Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
        absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(view, id);
        if (!highest.ok()) return highest.status();
        const int64_t to = std::min(request.to_sequence_nr, *highest);
        if (to < 1) return absl::OkStatus();  // nothing stored to delete
        // The metadata keeps the highest sequence number once the events
        // that carried it are gone.
        flatbuffers::DetachedBuffer metadata = EncodeStreamMetadata(*highest);
        rocksdb::Status status = batch.Put(
            view.metadata, StreamPrefix(id),
            rocksdb::Slice(reinterpret_cast<const char*>(metadata.data()),
                           metadata.size()));
        if (status.ok()) {
          status = batch.DeleteRange(view.events, StreamPrefix(id),
                                     KeyAfter(id, to));
        }
        commits_.fetch_add(1, std::memory_order_relaxed);
        return FromRocksDb(status, "building a batch");
      });
  if (status.ok()) db_->commits().Notify();
  if (!status.ok()) {
    status = absl::Status(
        status.code(),
        base::StrCat("deleting events of '", id, "' to ",
                     request.to_sequence_nr, ": ", status.message()));
  }
  std::move(request.done)(std::move(status));
}

}  // namespace cairn::persistence::rocksdb_internal
