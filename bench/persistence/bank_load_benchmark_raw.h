#ifndef CAIRN_BENCH_PERSISTENCE_BANK_LOAD_BENCHMARK_RAW_H_
#define CAIRN_BENCH_PERSISTENCE_BANK_LOAD_BENCHMARK_RAW_H_

// The raw RocksDB side of bank_load_benchmark: the tagged events the bank's
// journal stored, read back from its store in the order they were written,
// and written again straight on the library in fixed-size batches.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace cairn::bench {

// One tagged event as cairn's RocksDB journal stores it: the event under
// its key in the `events` column family, and its entry in the tag index
// (`tags`: the tag's key at the event's offset -> the event's key).
struct TaggedEvent {
  std::string key;
  std::string value;
  std::string tag_key;
};

// Every event tagged `tag` in the closed store in `dir`, in the order the
// journal wrote them (ascending tag offset: one writer thread gives the
// offsets in commit order). The store is opened read-only; nothing on disk
// changes. The store's error if it cannot be opened or read; DataLoss if a
// tag entry names an event that is not there.
[[nodiscard]] absl::StatusOr<std::vector<TaggedEvent>> ReadTaggedEvents(
    const std::string& dir, std::string_view tag);

// Writes `events` (each event and its tag entry) to a new database in the
// empty directory `dir`, with cairn's column families and default options,
// `batch_size` events per rocksdb::WriteBatch, from one thread, synced if
// `fsync`, and returns the events written per second (opening, closing and
// a first synced write of the new WAL, which cairn's store also makes
// before its journal writes, are not timed).
[[nodiscard]] absl::StatusOr<double> WriteTaggedEvents(
    const std::string& dir, const std::vector<TaggedEvent>& events,
    int64_t batch_size, bool fsync);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_BANK_LOAD_BENCHMARK_RAW_H_
