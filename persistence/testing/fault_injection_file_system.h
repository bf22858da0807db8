#ifndef CAIRN_PERSISTENCE_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
#define CAIRN_PERSISTENCE_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"

namespace cairn::persistence::testing {

// A rocksdb::FileSystem that forwards to another and, on command, fails or
// holds writes to write-ahead-log files (`*.log`): the files every journal
// write and snapshot save goes through. For tests of how the RocksDB
// plugins, and whatever sits on them, behave when the disk fails. Use it
// through NewFaultInjectionEnv and RocksDbOptions::env.
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

  struct Controls;

 private:
  rocksdb::IOStatus Wrap(const std::string& name, rocksdb::IOStatus opened,
                         std::unique_ptr<rocksdb::FSWritableFile>* file);

  const std::shared_ptr<Controls> controls_;
};

// An Env whose file system is `file_system` (rocksdb::NewCompositeEnv).
// Both must outlive every database opened with the Env.
std::unique_ptr<rocksdb::Env> NewFaultInjectionEnv(
    std::shared_ptr<FaultInjectionFileSystem> file_system);

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_TESTING_FAULT_INJECTION_FILE_SYSTEM_H_
