#ifndef CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_PROJECTION_STORE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_PROJECTION_STORE_H_

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "persistence/storage/projection_store.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
}  // namespace rocksdb

namespace cairn::persistence {

// A ProjectionStore (persistence/storage/projection_store.h) in a RocksDB
// database of its own. It is not the journal's database: a read model can
// be dropped and rebuilt from the journal without touching the events.
//
// Layout: the read model in the default column family (keys and values
// are the handlers'), the offsets in "projection_offsets" (key: the
// name's length as 4 bytes, the name, the key; value: a version byte, the
// offset and the envelope count as 8 bytes each, big-endian). A commit is
// one RocksDB WriteBatch, after its offset check under a mutex (the
// database is this process's alone).
//
// Thread safety: every method from any thread; RocksDB orders the
// writes. Closed when the last owner lets go.
class RocksDbProjectionStore final : public ProjectionStore {
 public:
  struct Options {
    // Create the directory's database if there is none.
    bool create_if_missing = true;
    // fsync each commit: the read model and its offset survive a machine
    // crash, not only a killed process (whose writes the operating system
    // keeps either way).
    bool sync = true;
  };

  // Opens (or creates) the store in `dir`. Unavailable naming the
  // directory and RocksDB's reason if it cannot.
  static absl::StatusOr<std::shared_ptr<ProjectionStore>> Open(
      const std::string& dir, Options options);
  static absl::StatusOr<std::shared_ptr<ProjectionStore>> Open(
      const std::string& dir) {
    return Open(dir, Options());
  }

  ~RocksDbProjectionStore() override;
  RocksDbProjectionStore(const RocksDbProjectionStore&) = delete;
  RocksDbProjectionStore& operator=(const RocksDbProjectionStore&) = delete;

  absl::StatusOr<ProjectionOffset> ReadOffset(
      const ProjectionId& id) const override;
  absl::Status SaveOffset(const ProjectionId& id,
                          ProjectionOffset offset) override;
  absl::Status Commit(ProjectionTransaction tx, const ProjectionId& id,
                      ProjectionOffset expected,
                      ProjectionOffset offset) override;
  absl::StatusOr<std::optional<std::string>> Get(
      std::string_view key) const override;
  absl::Status ForEach(
      std::string_view prefix,
      const std::function<bool(std::string_view key, std::string_view value)>&
          fn) const override;

 private:
  RocksDbProjectionStore(std::unique_ptr<rocksdb::DB> db,
                         rocksdb::ColumnFamilyHandle* offsets, Options options,
                         std::string dir);

  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* offsets_;  // owned: destroyed before db_
  // Held by a commit from its check to its write, by the id's hash.
  std::array<base::Mutex, 16> commit_mu_;
  const Options options_;
  const std::string dir_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_PROJECTION_STORE_H_
