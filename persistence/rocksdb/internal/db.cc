#include "persistence/rocksdb/internal/db.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/failure_handling.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/rocksdb_logger.h"
#include "persistence/rocksdb/internal/store_directory.h"
#include "persistence/rocksdb/internal/wal_check.h"
#include "rocksdb/env.h"
#include "rocksdb/options.h"

namespace cairn::persistence::rocksdb_internal {

absl::Status FromRocksDb(const rocksdb::Status& status, std::string_view what) {
  if (status.ok()) return absl::OkStatus();
  std::string message = base::StrCat(what, ": ", status.ToString());
  if (status.IsNotFound()) return absl::NotFoundError(message);
  if (status.IsCorruption()) return absl::DataLossError(message);
  if (status.IsInvalidArgument()) return absl::InvalidArgumentError(message);
  if (status.IsNotSupported()) return absl::UnimplementedError(message);
  if (status.IsNoSpace()) return absl::ResourceExhaustedError(message);
  if (status.IsIOError() || status.IsBusy() || status.IsTimedOut() ||
      status.IsTryAgain() || status.IsIncomplete() ||
      status.IsShutdownInProgress() || status.IsAborted()) {
    return absl::UnavailableError(message);
  }
  return absl::InternalError(message);
}

namespace {

std::string_view ModeName(RocksDbMode mode) {
  switch (mode) {
    case RocksDbMode::kReadWrite:
      return "read-write";
    case RocksDbMode::kReadOnly:
      return "read-only";
    case RocksDbMode::kSecondary:
      return "secondary";
  }
  return "unknown";
}

}  // namespace

absl::StatusOr<std::shared_ptr<Db>> Db::Open(const RocksDbOptions& options,
                                             WalRecovery wal_recovery) {
  if (wal_recovery == WalRecovery::kSkipDamaged &&
      options.mode == RocksDbMode::kReadWrite) {
    return absl::InvalidArgumentError(
        "skipping damaged write-ahead log records is for read-only opens");
  }
  if (options.mode == RocksDbMode::kSecondary &&
      options.secondary_path.empty()) {
    return absl::InvalidArgumentError(base::StrCat(
        "RocksDbOptions for ", options.path,
        ": mode secondary needs a secondary_path (secondary-dir), a "
        "directory of the instance's own outside the store"));
  }
  std::shared_ptr<Db> db(new Db(options, wal_recovery));
  {
    base::WriterMutexLock lock(&db->mu_);
    absl::Status opened = db->OpenLocked();
    if (!opened.ok()) return opened;
  }
  if (options.mode == RocksDbMode::kSecondary &&
      options.catch_up_interval.count() > 0) {
    db->catch_up_thread_ =
        std::thread([raw = db.get()] { raw->CatchUpPeriodically(); });
  }
  return db;
}

absl::StatusOr<std::shared_ptr<Db>> Db::OpenReadOnly(const std::string& path,
                                                     rocksdb::Env* env,
                                                     WalRecovery wal_recovery) {
  RocksDbOptions options;
  options.path = path;
  options.env = env;
  options.mode = RocksDbMode::kReadOnly;
  return Open(options, wal_recovery);
}

Db::Db(RocksDbOptions options, WalRecovery wal_recovery)
    : options_(std::move(options)),
      read_only_(options_.mode != RocksDbMode::kReadWrite),
      wal_recovery_(wal_recovery),
      logger_(NewRocksDbLogger(options_.log, options_.path)) {}

Db::~Db() {
  if (catch_up_thread_.joinable()) {
    {
      base::MutexLock lock(&stop_mu_);
      stopping_ = true;
    }
    stop_.SignalAll();
    catch_up_thread_.join();
  }
  base::WriterMutexLock lock(&mu_);
  CloseLocked();
}

absl::Status Db::OpenLocked() {
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = options_.create_if_missing && !read_only_;
  db_options.create_missing_column_families = !read_only_;
  if (options_.env != nullptr) db_options.env = options_.env;
  SetFailureHandling(options_, db_options);
  db_options.wal_recovery_mode =
      wal_recovery_ == WalRecovery::kSkipDamaged
          ? rocksdb::WALRecoveryMode::kSkipAnyCorruptedRecords
          : rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  const std::string where = base::StrCat("RocksDB store ", options_.path);

  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
      {kEventsColumnFamily, rocksdb::ColumnFamilyOptions()},
      {kSnapshotsColumnFamily, rocksdb::ColumnFamilyOptions()},
      {kMetadataColumnFamily, rocksdb::ColumnFamilyOptions()},
  };
  rocksdb::Env* env =
      options_.env != nullptr ? options_.env : rocksdb::Env::Default();
  absl::StatusOr<StoreDirectory> directory =
      InspectStoreDirectory(env, options_.path);
  if (!directory.ok()) return directory.status();
  // RocksDB reports a missing database as InvalidArgument, which would
  // read as bad options; a missing database is NotFound.
  if (!directory->has_current && !db_options.create_if_missing) {
    return absl::NotFoundError(
        base::StrCat("no RocksDB store at ", options_.path,
                     read_only_ ? "" : " (create-if-missing is off)"));
  }
  rocksdb::Status status;
  if (directory->has_current) {
    // An existing database must be ours. Reading needs every column family;
    // writing needs at least one (a first open cut short may have created
    // only some), so that another program's database is never changed.
    std::vector<std::string> existing;
    status =
        rocksdb::DB::ListColumnFamilies(db_options, options_.path, &existing);
    if (!status.ok())
      return FromRocksDb(status, base::StrCat("opening ", where));
    std::vector<std::string> missing;
    for (const char* name :
         {kEventsColumnFamily, kSnapshotsColumnFamily, kMetadataColumnFamily}) {
      if (std::find(existing.begin(), existing.end(), name) == existing.end()) {
        missing.push_back(name);
      }
    }
    if (read_only_ && !missing.empty()) {
      return absl::NotFoundError(
          base::StrCat(options_.path, " is not a cairn store: no '",
                       missing.front(), "' column family"));
    }
    // Families added by later builds: created by an open for writing,
    // left out of a read-only open of a store without them.
    for (const char* name :
         {kTagsColumnFamily, kIdsColumnFamily, kNamesColumnFamily,
          kStateColumnFamily, kStateTagsColumnFamily}) {
      if (std::find(existing.begin(), existing.end(), name) != existing.end() ||
          !read_only_) {
        families.push_back({name, rocksdb::ColumnFamilyOptions()});
      }
    }
    if (missing.size() == 3) {
      return absl::FailedPreconditionError(base::StrCat(
          where,
          " is a RocksDB database but not a cairn store (it has "
          "none of the column families events, snapshots, metadata); "
          "refusing to change it"));
    }
  }

  if (!directory->has_current) {
    for (const char* name :
         {kTagsColumnFamily, kIdsColumnFamily, kNamesColumnFamily,
          kStateColumnFamily, kStateTagsColumnFamily}) {
      families.push_back({name, rocksdb::ColumnFamilyOptions()});
    }
  }
  tags_index_ = -1;
  ids_index_ = -1;
  names_index_ = -1;
  state_index_ = -1;
  state_tags_index_ = -1;
  for (size_t i = 4; i < families.size(); ++i) {
    const std::string& name = families[i].name;
    (name == kTagsColumnFamily    ? tags_index_
     : name == kIdsColumnFamily   ? ids_index_
     : name == kNamesColumnFamily ? names_index_
     : name == kStateColumnFamily ? state_index_
                                  : state_tags_index_) = static_cast<int>(i);
  }
  // Created here rather than by DB::Open, whose summary of the directory,
  // logged before it creates it, would report a missing directory.
  if (!directory->has_current) {
    status = env->CreateDirIfMissing(options_.path);
    if (!status.ok())
      return FromRocksDb(status, base::StrCat("creating ", where));
  }

  if (directory->has_current && wal_recovery_ == WalRecovery::kVerify) {
    // Before RocksDB, whose failed open would already have changed files
    // (its info LOG), and which does not say where the damage is.
    absl::StatusOr<WalReport> wal = CheckWalFiles(env, options_.path);
    if (!wal.ok()) return wal.status();
    absl::Status damaged = WalProblemsStatus(options_.path, *wal);
    if (!damaged.ok()) return damaged;
  }

  rocksdb::DB* raw = nullptr;
  if (options_.mode == RocksDbMode::kSecondary) {
    // RocksDB's advice for secondaries: with every table file held open,
    // one the primary's compaction deletes stays readable until the next
    // catch-up drops it.
    db_options.max_open_files = -1;
    status = env->CreateDirIfMissing(options_.secondary_path);
    if (!status.ok()) {
      return FromRocksDb(status, base::StrCat("creating the secondary "
                                              "directory ",
                                              options_.secondary_path));
    }
    status = rocksdb::DB::OpenAsSecondary(db_options, options_.path,
                                          options_.secondary_path, families,
                                          &handles_, &raw);
  } else if (read_only_) {
    status = rocksdb::DB::OpenForReadOnly(db_options, options_.path, families,
                                          &handles_, &raw);
  } else {
    status =
        rocksdb::DB::Open(db_options, options_.path, families, &handles_, &raw);
  }
  if (!status.ok()) return FromRocksDb(status, base::StrCat("opening ", where));
  db_.reset(raw);

  std::string layout;
  status =
      db_->Get(rocksdb::ReadOptions(), handles_[0], kLayoutVersionKey, &layout);
  if (status.IsNotFound() && !read_only_) {
    // A new store (nothing is written before its layout version): its id
    // log is complete and empty from the start (id_log.h).
    rocksdb::WriteBatch batch;
    status = batch.Put(handles_[0], kLayoutVersionKey, kLayoutVersion);
    if (status.ok() && ids_index_ >= 0) {
      status = batch.Put(handles_[ids_index_], kHighestIdOffsetKey,
                         EncodeIdOffset(0));
    }
    rocksdb::WriteOptions sync;
    sync.sync = true;
    if (status.ok()) status = db_->Write(sync, &batch);
    layout = kLayoutVersion;
  }
  if (status.ok() && layout == kFirstLayoutVersion && !read_only_) {
    // What this open writes may be in event format 2 (kLayoutVersion).
    rocksdb::WriteOptions sync;
    sync.sync = true;
    status = db_->Put(sync, handles_[0], kLayoutVersionKey, kLayoutVersion);
    layout = kLayoutVersion;
  }
  absl::Status checked;
  if (status.IsNotFound()) {
    checked = absl::NotFoundError(base::StrCat(
        options_.path, " is not a cairn store: no layout version"));
  } else if (!status.ok()) {
    checked = FromRocksDb(status, base::StrCat("reading ", where));
  } else if (layout != kLayoutVersion && layout != kFirstLayoutVersion) {
    checked = absl::FailedPreconditionError(base::StrCat(
        where, " has layout version '", layout, "'; this build reads versions ",
        kFirstLayoutVersion, " and ", kLayoutVersion));
  }
  if (checked.ok() && !read_only_ && names_index_ >= 0) {
    absl::StatusOr<uint64_t> highest =
        ReadHighestManifestNumber(db_.get(), handles_[names_index_]);
    if (highest.ok()) {
      manifests_.SetStoredHighest(*highest);
    } else {
      checked = highest.status();
    }
  }
  if (!checked.ok()) CloseLocked();
  return checked;
}

void Db::CloseLocked() {
  if (db_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    // Fails only for a handle this DB did not make.
    db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  handles_.clear();
  // After a failed write Close repeats that failure, which was reported
  // already; what matters is whether reopening works.
  db_->Close().PermitUncheckedError();
  db_.reset();
}

absl::Status Db::Read(absl::FunctionRef<absl::Status(const View&)> read) {
  {
    base::ReaderMutexLock lock(&mu_);
    if (db_ != nullptr) {
      return read(CurrentView());
    }
  }
  // Closed by a failed reopen: a reader (an actor recovering after the
  // failure) must not wait for some writer to try again.
  if (absl::Status recovered = Recover(); !recovered.ok()) return recovered;
  base::ReaderMutexLock lock(&mu_);
  if (db_ == nullptr) {
    return absl::UnavailableError(
        base::StrCat("RocksDB store ", options_.path,
                     " is closed: reopening it after a failed write failed"));
  }
  return read(CurrentView());
}

absl::Status Db::Write(
    absl::FunctionRef<absl::Status(const View&, rocksdb::WriteBatch&)> build,
    size_t reserve_bytes) {
  if (read_only_) {
    return absl::FailedPreconditionError(base::StrCat(
        "RocksDB store ", options_.path, " is open in mode ",
        ModeName(options_.mode),
        ", which takes no writes (nothing was written); write through the "
        "process that opens it read-write"));
  }
  if (needs_recovery_.load(std::memory_order_acquire)) {
    absl::Status recovered = Recover();
    if (!recovered.ok()) return recovered;
  }
  rocksdb::Status written;
  {
    base::ReaderMutexLock lock(&mu_);
    if (db_ == nullptr) {
      return absl::UnavailableError(
          base::StrCat("RocksDB store ", options_.path,
                       " is closed: reopening it after a failed write failed"));
    }
    rocksdb::WriteBatch batch(reserve_bytes);
    absl::Status built = build(CurrentView(), batch);
    if (!built.ok()) return built;
    if (batch.Count() == 0) return absl::OkStatus();
    rocksdb::WriteOptions write_options;
    write_options.sync = options_.fsync;
    base::MutexLock one_at_a_time(&write_mu_);
    written = db_->Write(write_options, &batch);
  }
  if (!written.ok()) return WriteFailed(written);
  return absl::OkStatus();
}

absl::Status Db::WriteWithoutWaiting(
    absl::FunctionRef<absl::Status(const View&, rocksdb::WriteBatch&)> build,
    bool* would_wait, size_t reserve_bytes) {
  *would_wait = false;
  if (read_only_ || options_.fsync ||
      needs_recovery_.load(std::memory_order_acquire)) {
    *would_wait = true;  // Write says why, or syncs, or recovers
    return absl::OkStatus();
  }
  // Not behind a reopen (Recover holds mu_ exclusively), nor behind
  // another write.
  if (!mu_.ReaderTryLock()) {
    *would_wait = true;
    return absl::OkStatus();
  }
  if (db_ == nullptr) {
    mu_.ReaderUnlock();
    *would_wait = true;
    return absl::OkStatus();
  }
  if (!write_mu_.TryLock()) {
    mu_.ReaderUnlock();
    *would_wait = true;
    return absl::OkStatus();
  }
  rocksdb::Status written;
  rocksdb::WriteBatch batch(reserve_bytes);
  absl::Status built = build(CurrentView(), batch);
  if (built.ok() && batch.Count() > 0) {
    rocksdb::WriteOptions write_options;
    write_options.no_slowdown = true;
    written = db_->Write(write_options, &batch);
  }
  write_mu_.Unlock();
  mu_.ReaderUnlock();
  if (!built.ok()) return built;
  if (written.IsIncomplete()) {  // a stall or slowdown: nothing written
    *would_wait = true;
    return absl::OkStatus();
  }
  if (!written.ok()) return WriteFailed(written);
  return absl::OkStatus();
}

absl::Status Db::WriteFailed(const rocksdb::Status& written) {
  needs_recovery_.store(true, std::memory_order_release);
  return FromRocksDb(written,
                     base::StrCat("writing to RocksDB store ", options_.path));
}

absl::Status Db::Recover() {
  base::WriterMutexLock lock(&mu_);
  if (!needs_recovery_.load(std::memory_order_acquire)) {
    return absl::OkStatus();  // another writer recovered meanwhile
  }
  // Never rocksdb::DB::Resume. After a failed WAL append, RocksDB 7.8.3
  // resumes without replacing the WAL writer that failed when no memtable
  // has anything to flush; the next write goes to that writer, and
  // Debian's build aborts on an assertion there. A reopen starts a new WAL.
  // (failure_handling.h keeps RocksDB from resuming by itself.)
  CloseLocked();
  absl::Status reopened = OpenLocked();
  if (!reopened.ok()) {
    // Still a full disk, or else the store is down.
    return absl::Status(
        reopened.code() == absl::StatusCode::kResourceExhausted
            ? absl::StatusCode::kResourceExhausted
            : absl::StatusCode::kUnavailable,
        base::StrCat("reopening after a failed write: ", reopened.message()));
  }
  needs_recovery_.store(false, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status Db::CatchUpWithPrimary() {
  if (options_.mode != RocksDbMode::kSecondary) {
    return absl::FailedPreconditionError(
        base::StrCat("RocksDB store ", options_.path, " is open in mode ",
                     ModeName(options_.mode),
                     "; only a secondary instance catches up with a primary"));
  }
  base::ReaderMutexLock lock(&mu_);
  if (db_ == nullptr) {
    return absl::UnavailableError(
        base::StrCat("RocksDB store ", options_.path, " is closed"));
  }
  absl::Status caught_up =
      FromRocksDb(db_->TryCatchUpWithPrimary(),
                  base::StrCat("catching up with the primary of RocksDB "
                               "store ",
                               options_.path));
  if (caught_up.ok()) commits_.Notify();
  return caught_up;
}

void Db::CatchUpPeriodically() {
  const absl::Duration interval = absl::FromChrono(options_.catch_up_interval);
  while (true) {
    {
      const absl::Time next = absl::Now() + interval;
      base::MutexLock lock(&stop_mu_);
      while (!stopping_) {
        if (stop_.WaitWithDeadline(&stop_mu_, next)) break;
      }
      if (stopping_) return;
    }
    absl::Status caught_up = CatchUpWithPrimary();
    if (!caught_up.ok()) {
      const std::string message = caught_up.ToString();
      rocksdb::Warn(logger_, "%s", message.c_str());
    }
  }
}

bool Db::AttachJournal() { return !journal_attached_.exchange(true); }

void Db::DetachJournal() { journal_attached_.store(false); }

}  // namespace cairn::persistence::rocksdb_internal
