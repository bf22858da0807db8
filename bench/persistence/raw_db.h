#ifndef CAIRN_BENCH_PERSISTENCE_RAW_DB_H_
#define CAIRN_BENCH_PERSISTENCE_RAW_DB_H_

// The raw RocksDB side's database: opened as cairn's plugin opens its store
// (persistence/rocksdb/internal/db.cc: default options, the column
// families default, events, snapshots, metadata and tags; their number
// matters, as they share one WAL). Not thread safe to open or close; the
// handles are RocksDB's, safe from many threads.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace cairn::bench {

// InternalError "<what>: <RocksDB's status>".
absl::Status RocksDbFailure(const rocksdb::Status& status,
                            const std::string& what);

// A database with cairn's column families, closed when destroyed.
class RawDb {
 public:
  // The store in `dir` (read only if `read_only`). A failure names `dir`.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<RawDb>> Open(
      const std::string& dir, const rocksdb::DBOptions& options,
      bool read_only);

  // A new store in `dir` (made if missing), with what cairn's store writes
  // before its journal takes any write already written and synced: the
  // first sync of a new WAL file also syncs the file's metadata, several
  // times the cost of the next ones, and no side's clock should see it.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<RawDb>> Create(
      const std::string& dir);

  ~RawDb();
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  rocksdb::DB& db() { return *db_; }
  rocksdb::ColumnFamilyHandle* events() { return handles_[1]; }
  rocksdb::ColumnFamilyHandle* tags() { return handles_[4]; }

 private:
  RawDb() = default;

  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_RAW_DB_H_
