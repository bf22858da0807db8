#include "persistence/rocksdb/internal/manifest_table.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "base/mutex.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "rocksdb/iterator.h"

namespace cairn::persistence::rocksdb_internal {

absl::StatusOr<uint64_t> ReadHighestManifestNumber(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* names) {
  const std::string lower(1, kManifestKeyTag);
  const std::string upper(1, kManifestKeyTag + 1);
  rocksdb::Slice lower_slice(lower);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions options;
  options.iterate_lower_bound = &lower_slice;
  options.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(options, names));
  it->SeekToLast();
  if (!it->Valid()) {
    if (!it->status().ok()) {
      return FromRocksDb(it->status(), "reading the manifest numbers");
    }
    return 0;
  }
  return DecodeManifestKey(it->key().ToStringView());
}

ManifestTable::ManifestTable(size_t max_cached) : max_cached_(max_cached) {}

void ManifestTable::SetStoredHighest(uint64_t highest) {
  base::MutexLock lock(&mu_);
  highest_ = std::max(highest_, highest);
}

ManifestRef ManifestTable::NumberOf(std::string_view manifest) {
  if (manifest.empty()) return ManifestRef{};
  base::MutexLock lock(&mu_);
  auto found = numbers_.find(base::Av(manifest));
  if (found != numbers_.end()) {
    return ManifestRef{found->second.number, !found->second.stored};
  }
  if (numbers_.size() >= max_cached_) {
    // Those still unstored stay: batches on their way use their numbers.
    for (auto it = numbers_.begin(); it != numbers_.end();) {
      if (it->second.stored) {
        numbers_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  const uint64_t number = ++highest_;
  numbers_.emplace(std::string(manifest), Entry{number, false});
  unstored_.emplace(number, std::string(manifest));
  return ManifestRef{number, true};
}

absl::Status ManifestTable::AddEntry(rocksdb::ColumnFamilyHandle* names,
                                     uint64_t number,
                                     rocksdb::WriteBatch& batch) {
  std::string manifest;
  {
    base::MutexLock lock(&mu_);
    auto it = unstored_.find(number);
    // Stored since the caller was told it was not: nothing to add.
    if (it == unstored_.end()) return absl::OkStatus();
    manifest = it->second;
  }
  if (names == nullptr) {
    return absl::FailedPreconditionError(
        "the store has no names column family to write manifests to");
  }
  rocksdb::Status put = batch.Put(names, ManifestKey(number), manifest);
  if (!put.ok()) return FromRocksDb(put, "building a batch");
  return absl::OkStatus();
}

void ManifestTable::MarkStored(const std::vector<uint64_t>& numbers) {
  base::MutexLock lock(&mu_);
  for (uint64_t number : numbers) {
    auto it = unstored_.find(number);
    if (it == unstored_.end()) continue;
    auto entry = numbers_.find(it->second);
    if (entry != numbers_.end() && entry->second.number == number) {
      entry->second.stored = true;
    }
    unstored_.erase(it);
  }
}

absl::StatusOr<std::shared_ptr<const std::string>> ManifestTable::Find(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* names, uint64_t number) {
  if (number == 0) {
    static const auto* const kEmpty = new std::shared_ptr<const std::string>(
        std::make_shared<const std::string>());
    return *kEmpty;
  }
  {
    base::MutexLock lock(&mu_);
    auto it = manifests_.find(number);
    if (it != manifests_.end()) return it->second;
  }
  if (names == nullptr) {
    return absl::DataLossError(
        base::StrCat("manifest number ", number,
                     " is not in the store (it has no names column family)"));
  }
  std::string manifest;
  rocksdb::Status status =
      db->Get(rocksdb::ReadOptions(), names, ManifestKey(number), &manifest);
  if (status.IsNotFound()) {
    return absl::DataLossError(
        base::StrCat("manifest number ", number, " is not in the store"));
  }
  if (!status.ok()) {
    return FromRocksDb(status, base::StrCat("reading manifest ", number));
  }
  auto shared = std::make_shared<const std::string>(std::move(manifest));
  base::MutexLock lock(&mu_);
  if (manifests_.size() >= max_cached_) manifests_.clear();
  manifests_.emplace(number, shared);
  return shared;
}

}  // namespace cairn::persistence::rocksdb_internal
