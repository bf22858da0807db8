#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_MANIFEST_TABLE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_MANIFEST_TABLE_H_

// The store's serializer manifests, each stored once under a number, so
// that an event (format 2, event_codec.h) carries the number (a byte or
// two) instead of the manifest ("bank.Deposited.v1": 17 bytes in every
// event of the type otherwise). Kept in the names column family
// (kNamesColumnFamily) as ManifestKey(number) (key_codec.h) -> the
// manifest.
//
// Numbers start at 1 (0 stands for the empty manifest and is never
// stored) and are never reused or removed. A writing process gives each
// manifest its number the first time it writes it, from the store's
// highest number up, without reading the store: a manifest written again
// after a restart gets a second number (a few bytes per manifest and
// restart), and writing never waits for a read.
//
// A manifest's entries go into the same write batch as the first events
// that use its number, and into every batch after it that uses it, until
// one such batch is committed: an event is never stored without its
// manifest, whatever fails in between (a rejected write, a failed commit,
// a crash), and a committed batch's events are read with the entries.
//
// Thread safety: every method may be called from any thread. Memory is
// bounded: the caches drop what they hold (and take numbers again from the
// store) past a limit, so a store with very many manifests costs reads,
// never memory.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace cairn::persistence::rocksdb_internal {

// A manifest's number, and whether its entries must go with the event.
struct ManifestRef {
  uint64_t number = 0;
  bool unstored = false;
};

// The highest number `names` (the names column family) holds; 0 if none.
absl::StatusOr<uint64_t> ReadHighestManifestNumber(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* names);

class ManifestTable {
 public:
  // Caches at most `max_cached` manifests each way.
  explicit ManifestTable(size_t max_cached = 10'000);

  // For writers, before the first NumberOf: the highest number the store
  // holds (ReadHighestManifestNumber).
  void SetStoredHighest(uint64_t highest);

  // The number of `manifest` (0 for the empty one), given now if this
  // process has none for it; `unstored` if the caller's batch must carry
  // its entry (AddEntry).
  ManifestRef NumberOf(std::string_view manifest);

  // Adds the entry of `number` (an unstored one NumberOf gave) to `batch`,
  // in `names`.
  absl::Status AddEntry(rocksdb::ColumnFamilyHandle* names, uint64_t number,
                        rocksdb::WriteBatch& batch);
  // After a batch with the entries of `numbers` was committed.
  void MarkStored(const std::vector<uint64_t>& numbers);

  // The manifest stored under `number` (0: the empty one) in `names` of
  // `db`. DataLoss if there is none by that number (or no `names`).
  absl::StatusOr<std::shared_ptr<const std::string>> Find(
      rocksdb::DB* db, rocksdb::ColumnFamilyHandle* names, uint64_t number);

 private:
  struct Entry {
    uint64_t number = 0;
    bool stored = false;
  };

  const size_t max_cached_;
  base::Mutex mu_;
  // For writers: manifest -> its number.
  absl::flat_hash_map<std::string, Entry> numbers_ ABSL_GUARDED_BY(mu_);
  // Unstored manifests by number (also for AddEntries).
  absl::flat_hash_map<uint64_t, std::string> unstored_ ABSL_GUARDED_BY(mu_);
  // The highest number given.
  uint64_t highest_ ABSL_GUARDED_BY(mu_) = 0;
  // For readers: number -> manifest. Guarded by mu_.
  absl::flat_hash_map<uint64_t, std::shared_ptr<const std::string>> manifests_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_MANIFEST_TABLE_H_
