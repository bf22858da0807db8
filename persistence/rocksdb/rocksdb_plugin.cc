#include "persistence/rocksdb/rocksdb_plugin.h"

#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include "base/mutex.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/id_log.h"
#include "persistence/rocksdb/internal/rocksdb_durable_state_store.h"
#include "persistence/rocksdb/internal/rocksdb_journal.h"
#include "persistence/rocksdb/internal/rocksdb_snapshot_store.h"

namespace cairn::persistence {

namespace {

absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> OpenDb(
    const RocksDbOptions& options) {
  if (options.path.empty()) {
    return absl::InvalidArgumentError("RocksDbOptions: the path is empty");
  }
  if (options.reader_threads < 1) {
    return absl::InvalidArgumentError(
        base::StrCat("RocksDbOptions: reader_threads is ",
                     options.reader_threads, "; it must be at least 1"));
  }
  if (options.mode == RocksDbMode::kSecondary) {
    // Inside the store's directory, the instance's own files would change
    // the store, which a secondary promises not to.
    std::error_code ignored;  // then the paths are compared as given
    const std::filesystem::path store =
        std::filesystem::absolute(options.path, ignored).lexically_normal();
    const std::filesystem::path own =
        std::filesystem::absolute(options.secondary_path, ignored)
            .lexically_normal();
    const std::filesystem::path inside = own.lexically_relative(store);
    if (!options.secondary_path.empty() &&
        (inside.empty() || *inside.begin() != "..")) {
      return absl::InvalidArgumentError(base::StrCat(
          "RocksDbOptions: the secondary_path ", options.secondary_path,
          " is inside the store ", options.path,
          "; a secondary instance's own directory must be outside it"));
    }
  }
  return rocksdb_internal::Db::Open(options);
}

}  // namespace

absl::StatusOr<RocksDbStore> RocksDbStore::Open(const RocksDbOptions& options) {
  absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> db = OpenDb(options);
  if (!db.ok()) return db.status();
  return RocksDbStore(*std::move(db));
}

RocksDbStore::RocksDbStore(std::shared_ptr<rocksdb_internal::Db> db)
    : db_(std::move(db)) {}

absl::StatusOr<std::unique_ptr<Journal>> RocksDbStore::NewJournal(
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    const {
  if (!db_->AttachJournal()) {
    return absl::FailedPreconditionError(base::StrCat(
        "RocksDB store ", db_->options().path, " already has a journal"));
  }
  if (db_->options().mode == RocksDbMode::kReadWrite) {
    // Before the journal's writer appends to the id log.
    absl::Status id_log = rocksdb_internal::EnsureIdLog(*db_);
    if (!id_log.ok()) {
      db_->DetachJournal();
      return id_log;
    }
  }
  return std::make_unique<rocksdb_internal::RocksDbJournal>(
      db_, std::move(registry));
}

absl::Status RocksDbStore::CatchUpWithPrimary() const {
  return db_->CatchUpWithPrimary();
}

std::unique_ptr<SnapshotStore> RocksDbStore::NewSnapshotStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    const {
  return std::make_unique<rocksdb_internal::RocksDbSnapshotStore>(
      db_, std::move(registry));
}

std::unique_ptr<DurableStateStore> RocksDbStore::NewDurableStateStore(
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    const {
  return std::make_unique<rocksdb_internal::RocksDbDurableStateStore>(
      db_, std::move(registry));
}

namespace {

// The database shared by the plugins one RegisterRocksDbPlugins call
// registered: open while anything made from it lives.
//
// The last owner's release closes the database, and RocksDB holds its lock
// on the directory until the close completes, while the weak_ptr has
// expired at its start. A Get in between must wait for the close to finish
// rather than open the directory again and fail on the lock: the handles
// given out release through Release, which reports the close.
class SharedDb : public std::enable_shared_from_this<SharedDb> {
 public:
  explicit SharedDb(RocksDbOptions options) : options_(std::move(options)) {}

  absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> Get() {
    base::MutexLock lock(&mu_);
    if (std::shared_ptr<rocksdb_internal::Db> db = db_.lock()) return db;
    while (open_) closed_.Wait(&mu_);
    absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> opened =
        OpenDb(options_);
    if (!opened.ok()) return opened.status();
    rocksdb_internal::Db* raw = opened->get();
    // The deleter holds SharedDb weakly: db_ keeps the control block, and
    // with it the deleter, alive, so a strong reference would be a cycle.
    std::shared_ptr<rocksdb_internal::Db> db(
        raw, [self = weak_from_this(),
              owned = *std::move(opened)](rocksdb_internal::Db*) mutable {
          owned.reset();  // closes the database
          if (std::shared_ptr<SharedDb> shared = self.lock()) shared->Closed();
        });
    open_ = true;
    db_ = db;
    return db;
  }

 private:
  void Closed() {
    base::MutexLock lock(&mu_);
    open_ = false;
    closed_.SignalAll();
  }

  const RocksDbOptions options_;
  base::Mutex mu_;
  base::CondVar closed_;
  std::weak_ptr<rocksdb_internal::Db> db_ ABSL_GUARDED_BY(mu_);
  bool open_ ABSL_GUARDED_BY(mu_) = false;  // a Db not yet closed
};

}  // namespace

absl::Status RegisterRocksDbPlugins(PluginRegistry& registry,
                                    RocksDbOptions options) {
  auto shared = std::make_shared<SharedDb>(std::move(options));
  absl::Status journal = registry.RegisterJournal(
      kRocksDbJournalPluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<Journal>> {
        absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> db =
            shared->Get();
        if (!db.ok()) return db.status();
        return RocksDbStore(*std::move(db)).NewJournal(context.serialization);
      });
  if (!journal.ok()) return journal;
  absl::Status snapshots = registry.RegisterSnapshotStore(
      kRocksDbSnapshotStorePluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> db =
            shared->Get();
        if (!db.ok()) return db.status();
        return RocksDbStore(*std::move(db))
            .NewSnapshotStore(context.serialization);
      });
  if (!snapshots.ok()) return snapshots;
  return registry.RegisterDurableStateStore(
      kRocksDbDurableStateStorePluginId,
      [shared](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<DurableStateStore>> {
        absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> db =
            shared->Get();
        if (!db.ok()) return db.status();
        return RocksDbStore(*std::move(db))
            .NewDurableStateStore(context.serialization);
      });
}

}  // namespace cairn::persistence
