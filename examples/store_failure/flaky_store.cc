#include "examples/store_failure/flaky_store.h"

#include <utility>

#include "base/mutex.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"

namespace cairn::examples::store_failure {

using persistence::FaultInjectingJournal;
using persistence::Journal;
using persistence::PluginContext;
using persistence::SnapshotStore;

absl::StatusOr<std::shared_ptr<FlakyStore>> FlakyStore::Open(
    const std::string& dir) {
  persistence::RocksDbOptions options;
  options.path = dir;
  absl::StatusOr<persistence::RocksDbStore> db =
      persistence::RocksDbStore::Open(options);
  if (!db.ok()) return db.status();
  return std::shared_ptr<FlakyStore>(new FlakyStore(*std::move(db)));
}

absl::Status FlakyStore::RegisterPlugins(persistence::PluginRegistry& plugins) {
  absl::Status s = plugins.RegisterJournal(
      kJournalPluginId,
      [self = shared_from_this()](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<Journal>> {
        absl::StatusOr<std::unique_ptr<Journal>> rocksdb =
            self->db_.NewJournal(context.serialization);
        if (!rocksdb.ok()) return rocksdb.status();
        auto journal =
            std::make_unique<FaultInjectingJournal>(*std::move(rocksdb));
        self->Attach(journal.get());
        return std::unique_ptr<Journal>(std::move(journal));
      });
  if (!s.ok()) return s;
  return plugins.RegisterSnapshotStore(
      kSnapshotStorePluginId,
      [self = shared_from_this()](const PluginContext& context)
          -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        return self->db_.NewSnapshotStore(context.serialization);
      });
}

void FlakyStore::GoDown() {
  base::MutexLock lock(&mu_);
  down_ = true;
  Apply();
}

void FlakyStore::ComeBack() {
  base::MutexLock lock(&mu_);
  down_ = false;
  Apply();
}

void FlakyStore::Attach(FaultInjectingJournal* journal) {
  base::MutexLock lock(&mu_);
  journal_ = journal;
  Apply();
}

void FlakyStore::Apply() {
  if (journal_ == nullptr) return;
  journal_->SetFailWrites(down_);
  journal_->SetFailReplays(down_);
}

}  // namespace cairn::examples::store_failure
