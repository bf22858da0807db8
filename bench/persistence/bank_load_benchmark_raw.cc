#include "bench/persistence/bank_load_benchmark_raw.h"

#include <algorithm>
#include <cstdint>
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
#include "rocksdb/write_batch.h"

namespace cairn::bench {

absl::StatusOr<std::vector<TaggedEvent>> ReadTaggedEvents(
    const std::string& dir, std::string_view tag) {
  absl::StatusOr<std::unique_ptr<RawDb>> store =
      RawDb::Open(dir, rocksdb::DBOptions(), /*read_only=*/true);
  if (!store.ok()) return store.status();
  // The tag's entries are the keys [prefix][u64 offset]; the prefix
  // followed by nine 0xff bytes is above all of them and below every
  // other tag's keys (docs/PERSISTENCE_STORAGE.md).
  const std::string prefix = StreamPrefix(tag);
  const std::string upper = prefix + std::string(9, '\xff');
  const rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      (*store)->db().NewIterator(options, (*store)->tags()));
  std::vector<TaggedEvent> events;
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    TaggedEvent event{it->value().ToString(), "", it->key().ToString()};
    rocksdb::Status got = (*store)->db().Get(
        rocksdb::ReadOptions(), (*store)->events(), event.key, &event.value);
    if (got.IsNotFound()) {
      return absl::DataLossError(absl::StrCat(
          "the tag index of ", dir, " names an event that is not stored"));
    }
    if (!got.ok()) return RocksDbFailure(got, "reading a tagged event");
    events.push_back(std::move(event));
  }
  if (!it->status().ok())
    return RocksDbFailure(it->status(), "scanning the tag");
  return events;
}

absl::StatusOr<double> WriteTaggedEvents(const std::string& dir,
                                         const std::vector<TaggedEvent>& events,
                                         int64_t batch_size, bool fsync) {
  if (batch_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch size ", batch_size, " is not positive"));
  }
  absl::StatusOr<std::unique_ptr<RawDb>> store = RawDb::Create(dir);
  if (!store.ok()) return store.status();
  rocksdb::DB& db = (*store)->db();
  rocksdb::WriteOptions write_options;
  write_options.sync = fsync;
  const size_t step = static_cast<size_t>(batch_size);
  Stopwatch clock;
  for (size_t begin = 0; begin < events.size(); begin += step) {
    const size_t end = std::min(events.size(), begin + step);
    rocksdb::WriteBatch batch;
    for (size_t i = begin; i < end; ++i) {
      rocksdb::Status put =
          batch.Put((*store)->events(), events[i].key, events[i].value);
      if (put.ok()) {
        put = batch.Put((*store)->tags(), events[i].tag_key, events[i].key);
      }
      if (!put.ok()) return RocksDbFailure(put, "building a batch");
    }
    rocksdb::Status written = db.Write(write_options, &batch);
    if (!written.ok()) return RocksDbFailure(written, "writing a batch");
  }
  const double seconds = std::max(clock.Seconds(), 1e-9);
  return static_cast<double>(events.size()) / seconds;
}

}  // namespace cairn::bench
