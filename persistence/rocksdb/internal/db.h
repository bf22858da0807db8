#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_DB_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_DB_H_

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/mutex.h"
#include "persistence/rocksdb/internal/manifest_table.h"
#include "persistence/rocksdb/internal/snapshot_writes.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/storage/plugin_support/commit_notifier.h"
#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"

namespace cairn::persistence::rocksdb_internal {

inline constexpr char kEventsColumnFamily[] = "events";
inline constexpr char kSnapshotsColumnFamily[] = "snapshots";
inline constexpr char kMetadataColumnFamily[] = "metadata";
// The tag index (key_codec.h's TagKey -> the event's RecordKey) and the
// highest tag offset given (under kHighestTagOffsetKey). Added after the
// first stores: an open for writing creates it; a read-only or secondary
// open of a store without it reads no tags.
inline constexpr char kTagsColumnFamily[] = "tags";
// The id log: an entry per persistence id, in the order the ids got their
// first highest sequence number (key_codec.h's IdLogKey -> the id), and the
// highest id offset given (under kHighestIdOffsetKey), which also says that
// the log is complete (id_log.h). Added after tags: an open for writing
// creates it (and the journal back-fills it); a read-only or secondary open
// of a store without it has no id log.
inline constexpr char kIdsColumnFamily[] = "ids";
// The names events refer to by number: serializer manifests
// (manifest_table.h). Added with event format 2 (event_codec.h): an open
// for writing creates it; a store without it holds no format 2 events.
inline constexpr char kNamesColumnFamily[] = "names";
// The durable state store's values (state_codec.h: StateKey(id) -> a
// state record) and its tag index (StateTagKey(tag, offset) -> the id; the
// highest state offset given under kHighestStateOffsetKey). Added after
// names, as tags and ids were: an open for writing creates them; a
// read-only or secondary open of a store without them has no durable
// state.
inline constexpr char kStateColumnFamily[] = "state";
inline constexpr char kStateTagsColumnFamily[] = "state-tags";
// In the default column family: the version of the key layout and column
// families as a whole, checked on open. "2" since events may be in format
// 2 (event_codec.h), which builds reading only "1" cannot read: they
// refuse the store with a message instead of reporting its events
// corrupt. An open for writing raises a "1" store to "2".
inline constexpr char kLayoutVersionKey[] = "cairn.storage.layout-version";
inline constexpr char kLayoutVersion[] = "2";
inline constexpr char kFirstLayoutVersion[] = "1";

// A Status for a failed RocksDB call; `what` says what was attempted.
// A full disk (IOError NoSpace) becomes ResourceExhausted; other IOErrors
// (and other environment trouble) become Unavailable: the store is down;
// Corruption becomes DataLoss.
absl::Status FromRocksDb(const rocksdb::Status& status, std::string_view what);

// The database behind the RocksDB plugins: column families for events,
// snapshots and metadata. Shared (std::shared_ptr) by the journal and the
// snapshot store made on it; closed when the last owner lets go.
//
// RocksDB stops accepting writes after a failed write (a full disk, an I/O
// error) until it is resumed or reopened. Write does that on the next
// write: it closes and reopens the database, which recovers its WAL to the
// last complete record and starts a new one (never rocksdb::DB::Resume;
// Recover says why). If the reopen fails (the disk is still full), the
// database stays closed and the next read or write tries again. Reads and
// writes run under a shared lock, recovery under an exclusive one.
//
// Opening first looks at the directory and reads the write-ahead logs
// (store_directory.h, wal_check.h): a damaged store fails the open with
// nothing on disk changed. RocksDB then recovers with
// WALRecoveryMode::kTolerateCorruptedTailRecords: a record cut short at
// the end of a log (a crash during a write) is dropped, any other bad
// record fails the open (DataLoss); RocksDB's default, point-in-time
// recovery, would instead drop every record after the first bad one
// without a word. The same holds for the reopen after a failed write.
//
// options.mode says how: read-write, read-only (RocksDB's OpenForReadOnly)
// or as a secondary instance (OpenAsSecondary) that follows a primary in
// another process. The last two change nothing in the store's directory,
// check the logs as a read-write open does, and refuse every write with
// FailedPrecondition naming the store.
//
// Thread safety: every method may be called from any thread.
class Db {
 public:
  // How an open treats damaged write-ahead logs.
  enum class WalRecovery {
    // Refuse them: DataLoss naming the log file and offset, nothing
    // changed. What every open of the plugins uses.
    kVerify,
    // Read-only and secondary only: replay what can be read and skip damaged
    // records
    // (RocksDB's kSkipAnyCorruptedRecords), to inspect a damaged store.
    kSkipDamaged,
    // Open without reading the logs first: the caller has read them
    // (journal_tool), or rewritten them and reported what is missing
    // (salvage). RocksDB still refuses a bad record other than a last one
    // cut short.
    kTrustLogs,
  };

  struct View {
    rocksdb::DB* db;
    rocksdb::ColumnFamilyHandle* events;
    rocksdb::ColumnFamilyHandle* snapshots;
    rocksdb::ColumnFamilyHandle* metadata;
    // Null in a read-only or secondary open of a store written before tags
    // existed (kTagsColumnFamily): it has no tagged events.
    rocksdb::ColumnFamilyHandle* tags;
    // Null in a read-only or secondary open of a store written before the
    // id log existed (kIdsColumnFamily).
    rocksdb::ColumnFamilyHandle* ids;
    // Null in a read-only or secondary open of a store written before
    // event format 2 (kNamesColumnFamily).
    rocksdb::ColumnFamilyHandle* names;
    // Null in a read-only or secondary open of a store written before the
    // durable state store existed (kStateColumnFamily,
    // kStateTagsColumnFamily): it has no durable state.
    rocksdb::ColumnFamilyHandle* state;
    rocksdb::ColumnFamilyHandle* state_tags;
    // The manifests events refer to by number; never null.
    ManifestTable* manifests;
  };

  // Opens the database as options.mode says (creating it, per
  // options.create_if_missing, in mode read-write only). NotFound if there
  // is none and it is not created; other codes as RocksDbStore::Open's
  // (rocksdb_plugin.h). InvalidArgument for kSkipDamaged in mode read-write,
  // and for mode secondary without a secondary_path.
  [[nodiscard]] static absl::StatusOr<std::shared_ptr<Db>> Open(
      const RocksDbOptions& options,
      WalRecovery wal_recovery = WalRecovery::kVerify);
  // Open with mode read-only and no other options: nothing on disk
  // changes, and it works while another process has the database open for
  // writing.
  // NotFound if there is no database at `path`, or it is not a cairn
  // database; other codes as Open's.
  [[nodiscard]] static absl::StatusOr<std::shared_ptr<Db>> OpenReadOnly(
      const std::string& path, rocksdb::Env* env,
      WalRecovery wal_recovery = WalRecovery::kVerify);

  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Runs `read` on the open database and returns what it returns. If the
  // database is closed because reopening it after a failed write failed,
  // reopens it first, and returns that error (ResourceExhausted while the
  // disk is full, else Unavailable) without running `read` if it fails
  // again. `read` must not call back into this Db.
  [[nodiscard]] absl::Status Read(
      absl::FunctionRef<absl::Status(const View&)> read);

  // Lets `build` fill a batch (it may read through the view), then commits
  // the batch, synced if options.fsync. Returns build's error without
  // writing; OK without writing if the batch is empty. FailedPrecondition,
  // naming the store and its mode, unless the mode is read-write. Recovers
  // first if the previous write failed, and returns the recovery's error if
  // that fails too. `build` must not call back into this Db.
  // `reserve_bytes`: what the batch is expected to hold, reserved at once
  // (0: grown as it is built).
  [[nodiscard]] absl::Status Write(
      absl::FunctionRef<absl::Status(const View&, rocksdb::WriteBatch&)> build,
      size_t reserve_bytes = 0);
  // As Write, on a caller's thread that should not wait (a dispatcher's):
  // if the write would wait for a sync (options.fsync), a recovery or
  // reopen after a failed write, another write in progress or a RocksDB
  // stall or slowdown (WriteOptions::no_slowdown), it sets `*would_wait`,
  // writes nothing and returns OK. It takes no lock it would wait for;
  // what remains is the write itself (building the batch may read the
  // store, and the WAL append is a write(2), throttled by the kernel when
  // dirty pages pile up).
  [[nodiscard]] absl::Status WriteWithoutWaiting(
      absl::FunctionRef<absl::Status(const View&, rocksdb::WriteBatch&)> build,
      bool* would_wait, size_t reserve_bytes = 0);

  // Mode secondary: reads what the primary has written since the open or
  // the last catch-up (rocksdb::DB::TryCatchUpWithPrimary); reads running
  // meanwhile see the state before or after it. FailedPrecondition in the
  // other modes.
  [[nodiscard]] absl::Status CatchUpWithPrimary();

  // A database has at most one journal at a time: the journal's writer
  // thread is what orders writes and deletes. False if one is attached.
  bool AttachJournal();
  // Told of every commit of the journal's writer (and of every catch-up
  // of a secondary), for live queries.
  plugin_support::CommitNotifier& commits() { return commits_; }
  void DetachJournal();

  const RocksDbOptions& options() const { return options_; }
  // The store's manifest numbers (for writers: NumberOf, AddEntry,
  // MarkStored).
  ManifestTable& manifests() { return manifests_; }
  // The snapshot store's saves and deletes in flight, for a journal that
  // reads snapshots itself.
  SnapshotWrites& snapshot_writes() { return snapshot_writes_; }

 private:
  Db(RocksDbOptions options, WalRecovery wal_recovery);
  absl::Status OpenLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The open database's handles. Needs mu_ held and the database open.
  View CurrentView() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return View{db_.get(),
                handles_[1],
                handles_[2],
                handles_[3],
                tags_index_ >= 0 ? handles_[tags_index_] : nullptr,
                ids_index_ >= 0 ? handles_[ids_index_] : nullptr,
                names_index_ >= 0 ? handles_[names_index_] : nullptr,
                state_index_ >= 0 ? handles_[state_index_] : nullptr,
                state_tags_index_ >= 0 ? handles_[state_tags_index_] : nullptr,
                &manifests_};
  }
  void CloseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Recover();
  // A failed write's status, and the store marked for recovery.
  absl::Status WriteFailed(const rocksdb::Status& written);
  // Mode secondary with a catch_up_interval: catches up every interval
  // until the Db is destroyed.
  void CatchUpPeriodically();

  const RocksDbOptions options_;
  const bool read_only_;  // mode read-only or secondary
  const WalRecovery wal_recovery_;
  base::ReaderWriterMutex mu_;
  // One rocksdb::DB::Write at a time. Concurrent writes would form one of
  // RocksDB's write groups, whose leader copies the others' batches: the
  // synchronization that makes that safe is inside Debian's librocksdb,
  // which ThreadSanitizer cannot see, so every such copy is reported as a
  // race. cairn's own group commit (the journal's one writer thread)
  // already batches the events; what waits here is a snapshot or a delete
  // now and then.
  base::Mutex write_mu_;
  // Null while closed after a failed reopen. Shared to use, exclusive to
  // replace.
  std::unique_ptr<rocksdb::DB> db_ ABSL_GUARDED_BY(mu_);
  std::vector<rocksdb::ColumnFamilyHandle*> handles_ ABSL_GUARDED_BY(mu_);
  // Where the optional families' handles are in handles_; -1 if not open.
  int tags_index_ ABSL_GUARDED_BY(mu_) = -1;
  int ids_index_ ABSL_GUARDED_BY(mu_) = -1;
  int names_index_ ABSL_GUARDED_BY(mu_) = -1;
  int state_index_ ABSL_GUARDED_BY(mu_) = -1;
  int state_tags_index_ ABSL_GUARDED_BY(mu_) = -1;
  // Outlives reopens: numbers given before one are still the store's.
  mutable ManifestTable manifests_;  // thread safe; readers use it too
  SnapshotWrites snapshot_writes_;   // thread safe
  std::atomic<bool> needs_recovery_{false};
  std::atomic<bool> journal_attached_{false};
  plugin_support::CommitNotifier commits_;

  // Where a failed periodic catch-up is reported (options.log).
  const std::shared_ptr<rocksdb::Logger> logger_;
  base::Mutex stop_mu_;
  base::CondVar stop_;
  bool stopping_ ABSL_GUARDED_BY(stop_mu_) = false;
  std::thread catch_up_thread_;
};

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_DB_H_
