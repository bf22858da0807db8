#include "bench/persistence/persistence_benchmark_raw.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/raw_db.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/options.h"
#include "rocksdb/wal_filter.h"
#include "rocksdb/write_batch.h"

namespace cairn::bench {
namespace {

constexpr char kEventsFamily[] = "events";

// Collects the Puts of one WriteBatch to one column family.
class PutCollector : public rocksdb::WriteBatch::Handler {
 public:
  explicit PutCollector(uint32_t family) : family_(family) {}

  rocksdb::Status PutCF(uint32_t family, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    if (family == family_) {
      records_.push_back({key.ToString(), value.ToString()});
    }
    return rocksdb::Status::OK();
  }

  CommitBatch Take() { return std::move(records_); }

 private:
  const uint32_t family_;
  CommitBatch records_;
};

// Sees every WriteBatch of the WAL while the database recovers it on open:
// each one is a group commit of cairn's writer thread, the only writer.
class CommitRecorder : public rocksdb::WalFilter {
 public:
  void ColumnFamilyLogNumberMap(
      const std::map<uint32_t, uint64_t>& /*log_numbers*/,
      const std::map<std::string, uint32_t>& ids) override {
    auto it = ids.find(kEventsFamily);
    if (it != ids.end()) events_ = it->second;
  }

  WalProcessingOption LogRecordFound(unsigned long long /*log_number*/,
                                     const std::string& /*log_file_name*/,
                                     const rocksdb::WriteBatch& batch,
                                     rocksdb::WriteBatch* /*new_batch*/,
                                     bool* /*batch_changed*/) override {
    PutCollector collector(events_);
    status_ = batch.Iterate(&collector);
    if (!status_.ok()) return WalProcessingOption::kStopReplay;
    CommitBatch records = collector.Take();
    // Other families' batches (the layout version) are not the journal's.
    if (!records.empty()) commits_.push_back(std::move(records));
    return WalProcessingOption::kContinueProcessing;
  }

  const char* Name() const override { return "cairn-bench-commit-recorder"; }

  const rocksdb::Status& status() const { return status_; }
  std::vector<CommitBatch> Take() { return std::move(commits_); }

 private:
  uint32_t events_ = UINT32_MAX;
  rocksdb::Status status_;
  std::vector<CommitBatch> commits_;
};

}  // namespace

absl::StatusOr<std::vector<CommitBatch>> ReadCommits(const std::string& dir) {
  CommitRecorder recorder;
  rocksdb::DBOptions options;
  options.wal_filter = &recorder;
  absl::StatusOr<std::unique_ptr<RawDb>> db =
      RawDb::Open(dir, options, /*read_only=*/true);
  if (!db.ok()) return db.status();
  if (!recorder.status().ok()) {
    return RocksDbFailure(recorder.status(), "reading cairn's write-ahead log");
  }
  return recorder.Take();
}

absl::StatusOr<double> WriteCommits(const std::string& dir,
                                    const std::vector<CommitBatch>& commits,
                                    bool fsync, SideCost* cost) {
  absl::StatusOr<std::unique_ptr<RawDb>> db = RawDb::Create(dir);
  if (!db.ok()) return db.status();
  rocksdb::WriteOptions write_options;
  write_options.sync = fsync;
  int64_t records = 0;
  Stopwatch clock;
  for (const CommitBatch& commit : commits) {
    rocksdb::WriteBatch batch;
    for (const Record& record : commit) {
      rocksdb::Status put =
          batch.Put((*db)->events(), record.key, record.value);
      if (!put.ok()) return RocksDbFailure(put, "building a batch");
    }
    rocksdb::Status written = (*db)->db().Write(write_options, &batch);
    if (!written.ok()) return RocksDbFailure(written, "writing a batch");
    records += static_cast<int64_t>(commit.size());
  }
  const double seconds = clock.Seconds();
  if (cost != nullptr && records > 0) {
    *cost = SideCost::Of(clock, static_cast<double>(records));
  }
  return static_cast<double>(records) / seconds;
}

absl::StatusOr<ScanResult> ScanStreams(
    const std::string& dir, const std::vector<std::string>& persistence_ids) {
  absl::StatusOr<std::unique_ptr<RawDb>> db =
      RawDb::Open(dir, rocksdb::DBOptions(), /*read_only=*/false);
  if (!db.ok()) return db.status();
  ScanResult result;
  Stopwatch clock;
  std::unique_ptr<rocksdb::Iterator> it(
      (*db)->db().NewIterator(rocksdb::ReadOptions(), (*db)->events()));
  for (const std::string& id : persistence_ids) {
    const std::string prefix = StreamPrefix(id);
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix);
         it->Next()) {
      ++result.events;
      result.value_bytes += static_cast<int64_t>(it->value().size());
    }
  }
  if (!it->status().ok()) return RocksDbFailure(it->status(), "scanning");
  result.seconds = clock.Seconds();
  result.allocations = clock.Allocations();
  result.cpu_seconds = clock.CpuSeconds();
  return result;
}

absl::StatusOr<ScanResult> ScanTag(const std::string& dir,
                                   std::string_view tag) {
  absl::StatusOr<std::unique_ptr<RawDb>> db =
      RawDb::Open(dir, rocksdb::DBOptions(), /*read_only=*/false);
  if (!db.ok()) return db.status();
  // The tag's entries are the keys [prefix][u64 offset]; the prefix
  // followed by nine 0xff bytes is above all of them and below every
  // other tag's keys.
  const std::string prefix = StreamPrefix(tag);
  const std::string upper = prefix + std::string(9, '\xff');
  const rocksdb::Slice upper_slice(upper);
  ScanResult result;
  Stopwatch clock;
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      (*db)->db().NewIterator(options, (*db)->tags()));
  std::string event;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    // The entry's value is the event's key in `events`, used as it is.
    rocksdb::Status got = (*db)->db().Get(rocksdb::ReadOptions(),
                                          (*db)->events(), it->value(), &event);
    if (got.IsNotFound()) continue;  // a deleted event; none here
    if (!got.ok()) return RocksDbFailure(got, "reading a tagged event");
    ++result.events;
    result.value_bytes += static_cast<int64_t>(event.size());
  }
  if (!it->status().ok())
    return RocksDbFailure(it->status(), "scanning the tag");
  result.seconds = clock.Seconds();
  return result;
}

}  // namespace cairn::bench
