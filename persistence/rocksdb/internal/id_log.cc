#include "persistence/rocksdb/internal/id_log.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "base/string_view.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/query_reads.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

// Ids per back-fill batch: bounds the memory of an upgrade.
constexpr std::size_t kBackFillBatch = 10'000;

absl::Status Failed(const Db& db, const absl::Status& status) {
  return absl::Status(status.code(),
                      base::StrCat("back-filling the id log of RocksDB store ",
                                   db.options().path, ": ", status.message()));
}

}  // namespace

absl::Status EnsureIdLog(Db& db) {
  std::optional<int64_t> highest;
  absl::Status status = db.Read([&](const Db::View& view) -> absl::Status {
    if (view.ids == nullptr) {
      return absl::FailedPreconditionError(
          "the store has no ids column family");
    }
    absl::StatusOr<std::optional<int64_t>> read = ReadHighestIdOffset(view);
    if (!read.ok()) return read.status();
    highest = *read;
    return absl::OkStatus();
  });
  if (!status.ok()) return Failed(db, status);
  if (highest.has_value()) return absl::OkStatus();

  std::string after;  // the last id listed, in key order; empty at first
  int64_t offset = 0;
  bool first = true;
  while (true) {
    std::vector<std::string> ids;
    status = db.Read([&](const Db::View& view) {
      return ReadPersistenceIds(view, after, kBackFillBatch, ids);
    });
    if (!status.ok()) return Failed(db, status);
    const bool last = ids.size() < kBackFillBatch;
    status = db.Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
      rocksdb::Status put;
      if (first) {
        // What a back-fill cut short left.
        put = batch.DeleteRange(view.ids, IdLogKey(1),
                                IdLogKey(std::numeric_limits<int64_t>::max()));
      }
      for (const std::string& id : ids) {
        if (!put.ok()) break;
        put = batch.Put(view.ids, IdLogKey(++offset), id);
      }
      if (put.ok() && last) {
        put = batch.Put(view.ids, kHighestIdOffsetKey, EncodeIdOffset(offset));
      }
      return FromRocksDb(put, "building a batch");
    });
    if (!status.ok()) return Failed(db, status);
    if (last) return absl::OkStatus();
    after = ids.back();
    first = false;
  }
}

}  // namespace cairn::persistence::rocksdb_internal
