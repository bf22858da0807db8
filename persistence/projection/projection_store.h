#ifndef CAIRN_PERSISTENCE_PROJECTION_PROJECTION_STORE_H_
#define CAIRN_PERSISTENCE_PROJECTION_PROJECTION_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rocksdb {
class ColumnFamilyHandle;
class DB;
class WriteBatchWithIndex;
}  // namespace rocksdb

namespace cairn::persistence {

// Names one projection, and one instance of it when several run over
// parts of the events (Akka's ProjectionId: a name and a key, for example
// the tag). Offsets are stored under it.
struct ProjectionId {
  std::string name;
  std::string key;

  friend bool operator==(const ProjectionId&, const ProjectionId&) = default;
};

// Where a projection is in its query: every envelope below `offset` is
// handled, and the first `envelopes` with `offset` (an event that a
// read-side adapter split into several envelopes gives several with one
// offset). {0, 0}: nothing handled yet. A projection resumes at the
// envelope after it.
struct ProjectionOffset {
  int64_t offset = 0;
  int64_t envelopes = 0;

  friend bool operator==(const ProjectionOffset&,
                         const ProjectionOffset&) = default;
};

// The writes of one exactly-once step: what the handler writes to the read
// model, committed by the projection in one atomic write together with
// its offset (ProjectionStore::Commit). Reads see the transaction's own
// writes over what is committed.
//
// Thread safety: one thread at a time (the projection's).
class ProjectionTransaction {
 public:
  ~ProjectionTransaction();
  ProjectionTransaction(ProjectionTransaction&&) noexcept;
  ProjectionTransaction& operator=(ProjectionTransaction&&) noexcept;

  // The value of `key` (nullopt if none); Unavailable if the store cannot
  // be read.
  absl::StatusOr<std::optional<std::string>> Get(std::string_view key) const;
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);

 private:
  friend class ProjectionStore;
  ProjectionTransaction(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* model);

  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* model_;
  std::unique_ptr<rocksdb::WriteBatchWithIndex> batch_;
};

// A RocksDB database for projections: their offsets, and a key-value read
// model that exactly-once handlers write in the same atomic write as the
// offset (Akka Projections' exactly-once with the offset in the read
// model's own database). It is not the journal's database: a read model
// can be dropped and rebuilt from the journal without touching the
// events.
//
// Layout: the read model in the default column family (keys and values
// are the handlers'), the offsets in "projection_offsets" (key: the
// name's length as 4 bytes, the name, the key; value: a version byte, the
// offset and the envelope count as 8 bytes each, big-endian).
//
// Thread safety: every method from any thread; RocksDB orders the
// writes. Ownership: shared by the projections that use it and the
// readers of the read model; closed when the last owner lets go.
class ProjectionStore {
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

  ~ProjectionStore();
  ProjectionStore(const ProjectionStore&) = delete;
  ProjectionStore& operator=(const ProjectionStore&) = delete;

  // The stored offset of `id` ({0, 0} if none). DataLoss naming the
  // projection if the stored value cannot be read; Unavailable if the
  // store cannot be read.
  absl::StatusOr<ProjectionOffset> ReadOffset(const ProjectionId& id) const;
  // Stores `offset` for `id` (at-least-once: the handler's effects are
  // elsewhere). Unavailable with RocksDB's reason if the write fails.
  absl::Status SaveOffset(const ProjectionId& id, ProjectionOffset offset);

  // A transaction over the read model (see ProjectionTransaction).
  ProjectionTransaction Begin();
  // Writes `tx` and `offset` for `id` in one atomic write: both or
  // neither. Unavailable with RocksDB's reason if the write fails (then
  // nothing of it is stored).
  absl::Status Commit(ProjectionTransaction tx, const ProjectionId& id,
                      ProjectionOffset offset);

  // The read model, as committed.
  absl::StatusOr<std::optional<std::string>> Get(std::string_view key) const;
  // Calls `fn` for each committed key starting with `prefix`, ascending,
  // until it returns false. Unavailable if the store cannot be read.
  absl::Status ForEach(
      std::string_view prefix,
      const std::function<bool(std::string_view key, std::string_view value)>&
          fn) const;

 private:
  ProjectionStore(std::unique_ptr<rocksdb::DB> db,
                  rocksdb::ColumnFamilyHandle* offsets, Options options,
                  std::string dir);

  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::ColumnFamilyHandle* offsets_;  // owned: destroyed before db_
  const Options options_;
  const std::string dir_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_PROJECTION_PROJECTION_STORE_H_
