#include "persistence/rocksdb/internal/store_salvage.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/store_directory.h"
#include "persistence/rocksdb/internal/wal_file.h"
#include "rocksdb/write_batch.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

absl::Status Unavailable(std::string_view what, const rocksdb::Status& status) {
  return absl::UnavailableError(base::StrCat(what, ": ", status.ToString()));
}

absl::Status WriteCopy(rocksdb::Env* env, const std::string& path,
                       const std::string& contents) {
  std::unique_ptr<rocksdb::WritableFile> file;
  rocksdb::Status status =
      env->NewWritableFile(path, &file, rocksdb::EnvOptions());
  if (status.ok()) status = file->Append(contents);
  if (status.ok()) status = file->Sync();
  if (status.ok()) status = file->Close();
  if (!status.ok()) return Unavailable(base::StrCat("writing ", path), status);
  return absl::OkStatus();
}

absl::Status SyncDirectory(rocksdb::Env* env, const std::string& path) {
  std::unique_ptr<rocksdb::Directory> directory;
  rocksdb::Status status = env->NewDirectory(path, &directory);
  if (status.ok()) status = directory->Fsync();
  if (!status.ok()) return Unavailable(base::StrCat("syncing ", path), status);
  return absl::OkStatus();
}

// The events a write batch puts into the column family `events_id`.
class EventPuts final : public rocksdb::WriteBatch::Handler {
 public:
  explicit EventPuts(uint32_t events_id) : events_id_(events_id) {}

  rocksdb::Status PutCF(uint32_t family, const rocksdb::Slice& key,
                        const rocksdb::Slice&) override {
    if (family != events_id_) return rocksdb::Status::OK();
    absl::StatusOr<DecodedKey> decoded = DecodeRecordKey(key.ToStringView());
    if (decoded.ok()) {
      events.emplace(std::string(decoded->persistence_id),
                     decoded->sequence_nr);
    }
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteRangeCF(uint32_t, const rocksdb::Slice&,
                                const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status MergeCF(uint32_t, const rocksdb::Slice&,
                          const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }

  std::set<std::pair<std::string, int64_t>> events;

 private:
  const uint32_t events_id_;
};

// The logs' readable records, and the salvage of the damaged ones, under
// the store's lock. Returns false in `changed` if nothing was damaged.
absl::Status RewriteDamagedLogs(rocksdb::Env* env, const std::string& path,
                                SalvageResult& result,
                                std::vector<std::string>& damaged_batches) {
  rocksdb::FileLock* lock = nullptr;
  rocksdb::Status locked = env->LockFile(path + "/LOCK", &lock);
  if (!locked.ok()) {
    return Unavailable(
        base::StrCat("locking RocksDB store ", path, " (is it in use?)"),
        locked);
  }
  struct Unlock {
    rocksdb::Env* env;
    rocksdb::FileLock* lock;
    ~Unlock() { env->UnlockFile(lock).PermitUncheckedError(); }
  } unlock{env, lock};

  std::map<uint64_t, std::vector<std::string>> kept;  // by log number
  std::vector<std::pair<uint64_t, uint32_t>> sequences;
  absl::StatusOr<WalReport> logs =
      CheckWalFiles(env, path, [&](const WalLog& log, const WalRecord& record) {
        kept[log.number].emplace_back(record.batch);
        sequences.emplace_back(record.sequence, record.count);
      });
  if (!logs.ok()) return logs.status();
  result.logs = *std::move(logs);
  if (result.logs.problems.empty()) return absl::OkStatus();

  if (!sequences.empty()) {
    uint64_t expected = sequences.front().first;
    for (const auto& [sequence, count] : sequences) {
      if (sequence > expected) {
        result.lost_sequence_numbers.emplace_back(expected, sequence - 1);
      }
      expected = std::max(expected, sequence + count);
    }
  }

  result.backup_dir =
      base::StrCat(path, "/salvaged-", absl::ToUnixSeconds(absl::Now()));
  rocksdb::Status created = env->CreateDir(result.backup_dir);
  if (!created.ok()) {
    return Unavailable(base::StrCat("creating ", result.backup_dir), created);
  }
  result.changed = true;
  for (const WalLog& log : result.logs.logs) {
    if (log.scan.damage.empty()) continue;
    absl::StatusOr<std::string> contents = ReadWholeFile(env, log.path);
    if (!contents.ok()) return contents.status();
    for (const WalDamage& damage : log.scan.damage) {
      for (std::string& batch :
           UncheckedBatches(*contents, damage.offset, damage.length)) {
        damaged_batches.push_back(std::move(batch));
      }
    }
    absl::Status copied = WriteCopy(
        env, base::StrCat(result.backup_dir, "/", log.name), *contents);
    if (!copied.ok()) return copied;
  }
  absl::Status synced = SyncDirectory(env, result.backup_dir);
  if (!synced.ok()) return synced;

  for (const WalLog& log : result.logs.logs) {
    if (log.scan.damage.empty()) continue;
    // Not named like a log, so that nothing takes it for one meanwhile.
    const std::string replacement = log.path + ".salvage";
    absl::Status written = WriteWalFile(env, replacement, kept[log.number]);
    if (!written.ok()) return written;
    rocksdb::Status renamed = env->RenameFile(replacement, log.path);
    if (!renamed.ok()) {
      return Unavailable(base::StrCat("replacing ", log.path), renamed);
    }
    result.rewritten.emplace_back(log.path, log.scan.records);
  }
  return SyncDirectory(env, path);
}

}  // namespace

absl::StatusOr<SalvageResult> SalvageStore(const std::string& path,
                                           rocksdb::Env* env) {
  rocksdb::Env* files = env != nullptr ? env : rocksdb::Env::Default();
  absl::StatusOr<StoreDirectory> directory = InspectStoreDirectory(files, path);
  if (!directory.ok()) return directory.status();
  if (!directory->has_current) {
    return absl::NotFoundError(base::StrCat("no RocksDB store at ", path));
  }
  SalvageResult result;
  std::vector<std::string> damaged_batches;
  absl::Status rewritten =
      RewriteDamagedLogs(files, path, result, damaged_batches);
  const std::string kept_note =
      result.backup_dir.empty()
          ? std::string()
          : base::StrCat(" (the damaged logs as they were are in ",
                         result.backup_dir, ")");
  if (!rewritten.ok()) {
    return absl::Status(rewritten.code(),
                        base::StrCat(rewritten.message(), kept_note));
  }
  if (!result.changed) return result;

  RocksDbOptions options;
  options.path = path;
  options.env = env;
  options.create_if_missing = false;
  absl::StatusOr<std::shared_ptr<Db>> db =
      Db::Open(options, Db::WalRecovery::kTrustLogs);
  if (!db.ok()) {
    return absl::Status(
        db.status().code(),
        base::StrCat(
            "the damaged logs were replaced by their readable records, "
            "but opening the store then failed: ",
            db.status().message(), kept_note));
  }
  absl::Status read = (*db)->Read([&](const Db::View& view) {
    result.missing_events =
        FindMissingEvents(view, [](std::string_view, const absl::Status&) {});
    EventPuts named(view.events->GetID());
    for (const std::string& batch : damaged_batches) {
      rocksdb::WriteBatch(batch).Iterate(&named).PermitUncheckedError();
    }
    for (const auto& [id, sequence_nr] : named.events) {
      const bool reported = std::any_of(
          result.missing_events.begin(), result.missing_events.end(),
          [&, &id = id, &sequence_nr = sequence_nr](const MissingEvents& m) {
            return m.persistence_id == id && sequence_nr >= m.from &&
                   sequence_nr <= m.to;
          });
      if (reported) continue;
      std::string value;
      rocksdb::Status stored = view.db->Get(rocksdb::ReadOptions(), view.events,
                                            RecordKey(id, sequence_nr), &value);
      if (stored.IsNotFound())
        result.named_by_damage.emplace_back(id, sequence_nr);
    }
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  return result;
}

}  // namespace cairn::persistence::rocksdb_internal
