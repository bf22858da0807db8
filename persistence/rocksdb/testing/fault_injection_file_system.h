#ifndef CAIRN_PERSISTENCE_ROCKSDB_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
#define CAIRN_PERSISTENCE_ROCKSDB_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"

namespace cairn::persistence::testing {

// A rocksdb::FileSystem that forwards to another and, on command, makes the
// disk misbehave, for tests of how the RocksDB plugins, and whatever sits
// on them, behave when it does. Use it through NewFaultInjectionEnv and
// RocksDbOptions::env. The faults:
//
// - WAL write failures and holds (SetFailWalWrites, HoldNextWalAppend):
//   appends to and syncs of write-ahead-log files (`*.log`), the files
//   every journal write and snapshot save goes through.
// - A full disk (SetFreeSpace): appends to any file beyond the free space
//   write what fits and fail with IOStatus::NoSpace, as ENOSPC does.
// - Power loss (CutPower, then RestorePower): what was written but not
//   synced is gone, in the manner of LevelDB's and RocksDB's
//   FaultInjectionTestEnv.
//
// Power loss, precisely. For every file written through this file system
// it tracks the length at its last Sync/Fsync, and whether its directory
// entry is durable: an entry made (a new file, or a rename of one) since
// the last Fsync of its directory is not. A rename carries the entry's
// durability over from the source, as RocksDB's test file system does.
// Deletes are durable at once. Files it did not write (those there before
// it, the LOCK file) are taken as durable, and so are directories (a
// store's directory is taken to survive); hard links and random-access
// read-write files (which the plugins do not make) are not tracked. The state
// after a power loss is one a real disk may show: every unsynced byte and entry
// lost, every delete kept.
//
// Thread safety: every method may be called from any thread.
class FaultInjectionFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit FaultInjectionFileSystem(std::shared_ptr<rocksdb::FileSystem> base =
                                        rocksdb::FileSystem::Default());
  ~FaultInjectionFileSystem() override;

  const char* Name() const override { return "FaultInjectionFileSystem"; }

  // While on, appends to and syncs of WAL files fail with an IOError
  // ("injected WAL write failure"). Nothing of a failed append reaches the
  // file.
  void SetFailWalWrites(bool fail);

  // The next append to a WAL file waits until Release(). WaitUntilHeld
  // returns true once a writer is waiting there, false if none came within
  // `deadline`. Lets a test line up work behind a commit that is in
  // progress, deterministically.
  void HoldNextWalAppend();
  bool WaitUntilHeld(absl::Duration deadline);
  void Release();

  // From now on the disk has `bytes` free: appends (to any file) use it up,
  // and one that does not fit writes the part that does and fails with
  // IOStatus::NoSpace, retryable, as RocksDB's POSIX file system reports
  // ENOSPC; so does every append after it. Deleting or truncating files
  // frees nothing: free space is what the test gives. Call again to free
  // space; GetFreeSpace reports what is left.
  void SetFreeSpace(uint64_t bytes);
  // Back to the default: the base file system's space.
  void SetUnlimitedSpace();
  // What is left of the space SetFreeSpace gave; UINT64_MAX when
  // unlimited.
  uint64_t FreeSpace() const;

  // The power goes off: from now on every change to the disk through this
  // file system (append, sync, new file, rename, delete, directory sync)
  // fails with an IOError ("injected power loss") and changes nothing, so
  // that what a database does after this moment is lost with the power.
  // Close every database on this file system, then call RestorePower.
  void CutPower();
  // How many of the `unsynced` bytes at the end of `file` a power loss
  // keeps (at most `unsynced`): those the disk had written back before the
  // power went.
  using KeptUnsynced =
      std::function<uint64_t(const std::string& file, uint64_t unsynced)>;
  // The machine comes back: every tracked file is truncated to its length
  // at its last sync (plus what `kept` says it keeps of the rest; nothing
  // without `kept`), every file whose directory entry is not durable is
  // removed, and changes go through again. Call with no database open on
  // this file system. Returns the first error the base file system gave
  // while doing that (the disk is then in between).
  absl::Status RestorePower(const KeptUnsynced& kept = nullptr);

  rocksdb::IOStatus NewWritableFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* file,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus ReopenWritableFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* file,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus ReuseWritableFile(
      const std::string& name, const std::string& old_name,
      const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* file,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus NewDirectory(const std::string& name,
                                 const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* dir,
                                 rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus DeleteFile(const std::string& name,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus RenameFile(const std::string& source,
                               const std::string& target,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus Truncate(const std::string& name, size_t size,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus CreateDir(const std::string& name,
                              const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& name,
                                       const rocksdb::IOOptions& options,
                                       rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus DeleteDir(const std::string& name,
                              const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus GetFreeSpace(const std::string& path,
                                 const rocksdb::IOOptions& options,
                                 uint64_t* free_space,
                                 rocksdb::IODebugContext* debug) override;

  struct Controls;

 private:
  rocksdb::IOStatus Track(const std::string& name, bool reopened,
                          rocksdb::IOStatus opened,
                          std::unique_ptr<rocksdb::FSWritableFile>* file);

  const std::shared_ptr<Controls> controls_;
};

// An Env whose file system is `file_system` (rocksdb::NewCompositeEnv).
// Both must outlive every database opened with the Env.
std::unique_ptr<rocksdb::Env> NewFaultInjectionEnv(
    std::shared_ptr<FaultInjectionFileSystem> file_system);

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_ROCKSDB_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
