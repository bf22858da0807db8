#include "persistence/testing/fault_injection_file_system.h"

#include <condition_variable>
#include <mutex>
#include <utility>

namespace cairn::persistence::testing {

struct FaultInjectionFileSystem::Controls {
  std::mutex mu;
  std::condition_variable changed;
  bool fail = false;     // guarded by mu
  bool hold = false;     // guarded by mu: the next append waits
  bool held = false;     // guarded by mu: an append is waiting
  bool release = false;  // guarded by mu

  rocksdb::IOStatus BeforeWrite(bool is_append) {
    std::unique_lock<std::mutex> lock(mu);
    if (is_append && hold) {
      hold = false;
      held = true;
      changed.notify_all();
      changed.wait(lock, [this] { return release; });
      release = false;
      held = false;
    }
    if (fail) return rocksdb::IOStatus::IOError("injected WAL write failure");
    return rocksdb::IOStatus::OK();
  }
};

namespace {

class WalFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  WalFile(std::unique_ptr<rocksdb::FSWritableFile> file,
          std::shared_ptr<FaultInjectionFileSystem::Controls> controls)
      : FSWritableFileOwnerWrapper(std::move(file)),
        controls_(std::move(controls)) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* debug) override {
    rocksdb::IOStatus status = controls_->BeforeWrite(true);
    if (!status.ok()) return status;
    return FSWritableFileOwnerWrapper::Append(data, options, debug);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* debug) override {
    rocksdb::IOStatus status = controls_->BeforeWrite(true);
    if (!status.ok()) return status;
    return FSWritableFileOwnerWrapper::Append(data, options, info, debug);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options,
                         rocksdb::IODebugContext* debug) override {
    rocksdb::IOStatus status = controls_->BeforeWrite(false);
    if (!status.ok()) return status;
    return FSWritableFileOwnerWrapper::Sync(options, debug);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* debug) override {
    rocksdb::IOStatus status = controls_->BeforeWrite(false);
    if (!status.ok()) return status;
    return FSWritableFileOwnerWrapper::Fsync(options, debug);
  }

 private:
  const std::shared_ptr<FaultInjectionFileSystem::Controls> controls_;
};

bool IsWal(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
}

}  // namespace

FaultInjectionFileSystem::FaultInjectionFileSystem(
    std::shared_ptr<rocksdb::FileSystem> base)
    : FileSystemWrapper(base), controls_(std::make_shared<Controls>()) {}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

void FaultInjectionFileSystem::SetFailWalWrites(bool fail) {
  std::lock_guard<std::mutex> lock(controls_->mu);
  controls_->fail = fail;
}

void FaultInjectionFileSystem::HoldNextWalAppend() {
  std::lock_guard<std::mutex> lock(controls_->mu);
  controls_->hold = true;
}

bool FaultInjectionFileSystem::WaitUntilHeld(absl::Duration deadline) {
  std::unique_lock<std::mutex> lock(controls_->mu);
  return controls_->changed.wait_for(lock, absl::ToChronoMilliseconds(deadline),
                                     [this] { return controls_->held; });
}

void FaultInjectionFileSystem::Release() {
  std::lock_guard<std::mutex> lock(controls_->mu);
  controls_->release = true;
  controls_->changed.notify_all();
}

rocksdb::IOStatus FaultInjectionFileSystem::Wrap(
    const std::string& name, rocksdb::IOStatus opened,
    std::unique_ptr<rocksdb::FSWritableFile>* file) {
  if (opened.ok() && IsWal(name)) {
    *file = std::make_unique<WalFile>(std::move(*file), controls_);
  }
  return opened;
}

rocksdb::IOStatus FaultInjectionFileSystem::NewWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  return Wrap(name, target()->NewWritableFile(name, options, file, debug),
              file);
}

rocksdb::IOStatus FaultInjectionFileSystem::ReopenWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  return Wrap(name, target()->ReopenWritableFile(name, options, file, debug),
              file);
}

rocksdb::IOStatus FaultInjectionFileSystem::ReuseWritableFile(
    const std::string& name, const std::string& old_name,
    const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  return Wrap(name,
              target()->ReuseWritableFile(name, old_name, options, file, debug),
              file);
}

std::unique_ptr<rocksdb::Env> NewFaultInjectionEnv(
    std::shared_ptr<FaultInjectionFileSystem> file_system) {
  return rocksdb::NewCompositeEnv(file_system);
}

}  // namespace cairn::persistence::testing
