#include "persistence/internal/group_commit.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

#include "persistence/internal/absl_bridge.h"
#include "persistence/internal/key_codec.h"
#include "persistence/internal/metadata_codec.h"
#include "persistence/internal/stream_reads.h"

namespace cairn::persistence::internal {
namespace {

// A status equal to `status` that shares no representation with it.
absl::Status OwnCopy(const absl::Status& status) {
  return absl::Status(status.code(), status.message());
}

}  // namespace

GroupCommitWriter::GroupCommitWriter(std::shared_ptr<Db> db)
    : db_(std::move(db)), thread_([this] { Run(); }) {
  pthread_setname_np(thread_.native_handle(), "cairn-jrnl-wr");
}

GroupCommitWriter::~GroupCommitWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  ready_.notify_one();
  thread_.join();
}

void GroupCommitWriter::Submit(Request request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(request));
  }
  ready_.notify_one();
}

void GroupCommitWriter::Run() {
  std::vector<Request> group;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything is committed
      group.swap(queue_);
    }
    Process(group);
    group.clear();
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

void GroupCommitWriter::CommitWrites(std::vector<Request>& group, size_t begin,
                                     size_t end) {
  if (begin == end) return;
  absl::Status status = db_->Write([&](const Db::View& view,
                                       rocksdb::WriteBatch& batch) {
    for (size_t i = begin; i < end; ++i) {
      for (const auto& records : std::get<PendingWrite>(group[i]).records) {
        for (const EncodedRecord& record : records) {
          rocksdb::Status put = batch.Put(
              view.events, record.key,
              rocksdb::Slice(reinterpret_cast<const char*>(record.value.data()),
                             record.value.size()));
          if (!put.ok()) return FromRocksDb(put, "building a batch");
        }
      }
    }
    if (batch.Count() > 0) commits_.fetch_add(1, std::memory_order_relaxed);
    return absl::OkStatus();
  });
  for (size_t i = begin; i < end; ++i) {
    PendingWrite& write = std::get<PendingWrite>(group[i]);
    if (status.ok()) {
      std::move(write.done)(absl::OkStatus(), std::move(write.per_write));
    } else {
      // Statuses of its own for each callback, and none kept here: the
      // callbacks hand them to other threads, and absl::Status's shared
      // reference count is invisible to ThreadSanitizer (absl is not
      // instrumented), which would report the last release as a race.
      absl::Status failed = OwnCopy(status);
      std::vector<absl::Status> per_write(write.per_write.size(), failed);
      std::move(write.done)(std::move(failed), std::move(per_write));
    }
  }
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
  if (!status.ok()) {
    status = absl::Status(
        status.code(), StrCat("deleting events of '", id, "' to ",
                              request.to_sequence_nr, ": ", status.message()));
  }
  std::move(request.done)(std::move(status));
}

}  // namespace cairn::persistence::internal
