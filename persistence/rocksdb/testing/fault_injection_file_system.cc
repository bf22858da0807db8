#include "persistence/rocksdb/testing/fault_injection_file_system.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::persistence::testing {

struct FaultInjectionFileSystem::Controls {
  // What a power loss would leave of a file written through this file
  // system.
  struct FileState {
    uint64_t size = 0;    // bytes written, as the file has them now
    uint64_t synced = 0;  // the length at the last sync
    bool entry_durable = false;
  };

  base::Mutex mu;
  base::CondVar changed;
  bool fail_wal ABSL_GUARDED_BY(mu) = false;
  bool hold ABSL_GUARDED_BY(mu) = false;  // the next WAL append waits
  bool held ABSL_GUARDED_BY(mu) = false;  // a WAL append is waiting
  bool release ABSL_GUARDED_BY(mu) = false;
  std::optional<uint64_t> free_space ABSL_GUARDED_BY(mu);  // none: unlimited
  bool power_off ABSL_GUARDED_BY(mu) = false;
  std::map<std::string, FileState> files ABSL_GUARDED_BY(mu);

  rocksdb::IOStatus BeforeWalWrite(bool is_append) {
    base::MutexLock lock(&mu);
    if (is_append && hold) {
      hold = false;
      held = true;
      changed.SignalAll();
      while (!release) changed.Wait(&mu);
      release = false;
      held = false;
    }
    if (fail_wal) {
      return rocksdb::IOStatus::IOError("injected WAL write failure");
    }
    return rocksdb::IOStatus::OK();
  }

  rocksdb::IOStatus PowerCheckLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (power_off) return rocksdb::IOStatus::IOError("injected power loss");
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus PowerCheck() {
    base::MutexLock lock(&mu);
    return PowerCheckLocked();
  }

  // How many of `n` bytes an append may write: all of them, or what is
  // left of the free space, which they then use up.
  rocksdb::IOStatus Reserve(size_t n, size_t* allowed) {
    base::MutexLock lock(&mu);
    if (rocksdb::IOStatus s = PowerCheckLocked(); !s.ok()) return s;
    *allowed = n;
    if (free_space.has_value()) {
      *allowed = static_cast<size_t>(std::min<uint64_t>(n, *free_space));
      *free_space -= *allowed;
    }
    return rocksdb::IOStatus::OK();
  }

  void Written(const std::string& name, uint64_t end) {
    base::MutexLock lock(&mu);
    FileState& state = files[name];
    state.size = std::max(state.size, end);
  }

  uint64_t Size(const std::string& name) {
    base::MutexLock lock(&mu);
    return files[name].size;
  }

  // A sync of `name` that began when it had `size` bytes has finished: they
  // survive a power loss, unless the power went off meanwhile.
  rocksdb::IOStatus Synced(const std::string& name, uint64_t size) {
    base::MutexLock lock(&mu);
    if (rocksdb::IOStatus s = PowerCheckLocked(); !s.ok()) return s;
    FileState& state = files[name];
    state.synced = std::max(state.synced, size);
    return rocksdb::IOStatus::OK();
  }

  rocksdb::IOStatus DirectorySynced(const std::string& directory) {
    base::MutexLock lock(&mu);
    if (rocksdb::IOStatus s = PowerCheckLocked(); !s.ok()) return s;
    for (auto& [name, state] : files) {
      const size_t slash = name.rfind('/');
      if (slash != std::string::npos &&
          std::string_view(name).substr(0, slash) == directory) {
        state.entry_durable = true;
      }
    }
    return rocksdb::IOStatus::OK();
  }
};

namespace {

rocksdb::IOStatus NoSpace(const std::string& name) {
  rocksdb::IOStatus status = rocksdb::IOStatus::NoSpace(
      absl::StrCat("While appending to file: ", name),
      "No space left on device (injected)");
  status.SetRetryable(true);
  return status;
}

std::string WithoutTrailingSlash(std::string name) {
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  return name;
}

// Through a writable file: RocksDB's POSIX file system has no
// FileSystem::Truncate.
rocksdb::IOStatus TruncateFile(rocksdb::FileSystem& file_system,
                               const std::string& name, uint64_t size) {
  std::unique_ptr<rocksdb::FSWritableFile> file;
  rocksdb::IOStatus status = file_system.ReopenWritableFile(
      name, rocksdb::FileOptions(), &file, nullptr);
  if (!status.ok()) return status;
  status = file->Truncate(size, rocksdb::IOOptions(), nullptr);
  rocksdb::IOStatus closed = file->Close(rocksdb::IOOptions(), nullptr);
  return status.ok() ? closed : status;
}

bool IsWal(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
}

// A file written through the file system: each write is checked against
// the faults in force, and what it adds and syncs is recorded.
class TrackedFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  TrackedFile(std::unique_ptr<rocksdb::FSWritableFile> file, std::string name,
              std::shared_ptr<FaultInjectionFileSystem::Controls> controls)
      : FSWritableFileOwnerWrapper(std::move(file)),
        name_(std::move(name)),
        wal_(IsWal(name_)),
        controls_(std::move(controls)) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* debug) override {
    return Write(data, std::nullopt, [&](const rocksdb::Slice& part) {
      return target()->Append(part, options, debug);
    });
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* debug) override {
    return Write(data, std::nullopt, [&](const rocksdb::Slice& part) {
      // The checksum covers all of data: a part goes without it.
      return part.size() == data.size()
                 ? target()->Append(part, options, info, debug)
                 : target()->Append(part, options, debug);
    });
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data,
                                     uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* debug) override {
    return Write(data, offset, [&](const rocksdb::Slice& part) {
      return target()->PositionedAppend(part, offset, options, debug);
    });
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data,
                                     uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* debug) override {
    return Write(data, offset, [&](const rocksdb::Slice& part) {
      return part.size() == data.size()
                 ? target()->PositionedAppend(part, offset, options, info,
                                              debug)
                 : target()->PositionedAppend(part, offset, options, debug);
    });
  }

  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options,
                         rocksdb::IODebugContext* debug) override {
    return SyncWith(
        [&] { return FSWritableFileOwnerWrapper::Sync(options, debug); });
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* debug) override {
    return SyncWith(
        [&] { return FSWritableFileOwnerWrapper::Fsync(options, debug); });
  }
  rocksdb::IOStatus RangeSync(uint64_t offset, uint64_t nbytes,
                              const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* debug) override {
    // Starts writeback; promises nothing about a power loss.
    if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
    return FSWritableFileOwnerWrapper::RangeSync(offset, nbytes, options,
                                                 debug);
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* debug) override {
    if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
    rocksdb::IOStatus status =
        FSWritableFileOwnerWrapper::Truncate(size, options, debug);
    if (status.ok()) {
      base::MutexLock lock(&controls_->mu);
      auto& state = controls_->files[name_];
      state.size = std::min<uint64_t>(state.size, size);
      state.synced = std::min<uint64_t>(state.synced, size);
    }
    return status;
  }

 private:
  template <typename WriteFn>
  rocksdb::IOStatus Write(const rocksdb::Slice& data,
                          std::optional<uint64_t> offset, WriteFn write) {
    if (wal_) {
      if (rocksdb::IOStatus s = controls_->BeforeWalWrite(true); !s.ok()) {
        return s;
      }
    }
    size_t allowed = 0;
    if (rocksdb::IOStatus s = controls_->Reserve(data.size(), &allowed);
        !s.ok()) {
      return s;
    }
    const uint64_t start = offset.value_or(controls_->Size(name_));
    if (allowed > 0) {
      rocksdb::IOStatus status = write(rocksdb::Slice(data.data(), allowed));
      if (!status.ok()) return status;
      controls_->Written(name_, start + allowed);
    }
    if (allowed < data.size()) return NoSpace(name_);
    return rocksdb::IOStatus::OK();
  }

  template <typename SyncFn>
  rocksdb::IOStatus SyncWith(SyncFn sync) {
    if (wal_) {
      if (rocksdb::IOStatus s = controls_->BeforeWalWrite(false); !s.ok()) {
        return s;
      }
    }
    if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
    const uint64_t size = controls_->Size(name_);
    rocksdb::IOStatus status = sync();
    if (!status.ok()) return status;
    return controls_->Synced(name_, size);
  }

  const std::string name_;
  const bool wal_;
  const std::shared_ptr<FaultInjectionFileSystem::Controls> controls_;
};

// A directory whose syncs make the entries made in it durable.
class TrackedDirectory final : public rocksdb::FSDirectoryWrapper {
 public:
  TrackedDirectory(std::unique_ptr<rocksdb::FSDirectory> directory,
                   std::string name,
                   std::shared_ptr<FaultInjectionFileSystem::Controls> controls)
      : FSDirectoryWrapper(std::move(directory)),
        name_(WithoutTrailingSlash(std::move(name))),
        controls_(std::move(controls)) {}

  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* debug) override {
    if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
    rocksdb::IOStatus status = FSDirectoryWrapper::Fsync(options, debug);
    if (!status.ok()) return status;
    return controls_->DirectorySynced(name_);
  }
  rocksdb::IOStatus FsyncWithDirOptions(
      const rocksdb::IOOptions& options, rocksdb::IODebugContext* debug,
      const rocksdb::DirFsyncOptions& dir_options) override {
    if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
    rocksdb::IOStatus status =
        FSDirectoryWrapper::FsyncWithDirOptions(options, debug, dir_options);
    if (!status.ok()) return status;
    return controls_->DirectorySynced(name_);
  }

 private:
  const std::string name_;
  const std::shared_ptr<FaultInjectionFileSystem::Controls> controls_;
};

}  // namespace

FaultInjectionFileSystem::FaultInjectionFileSystem(
    std::shared_ptr<rocksdb::FileSystem> base)
    : FileSystemWrapper(base), controls_(std::make_shared<Controls>()) {}

FaultInjectionFileSystem::~FaultInjectionFileSystem() = default;

void FaultInjectionFileSystem::SetFailWalWrites(bool fail) {
  base::MutexLock lock(&controls_->mu);
  controls_->fail_wal = fail;
}

void FaultInjectionFileSystem::HoldNextWalAppend() {
  base::MutexLock lock(&controls_->mu);
  controls_->hold = true;
}

bool FaultInjectionFileSystem::WaitUntilHeld(absl::Duration deadline) {
  const absl::Time end = absl::Now() + deadline;
  base::MutexLock lock(&controls_->mu);
  while (!controls_->held) {
    if (controls_->changed.WaitWithDeadline(&controls_->mu, end)) {
      return controls_->held;
    }
  }
  return true;
}

void FaultInjectionFileSystem::Release() {
  base::MutexLock lock(&controls_->mu);
  controls_->release = true;
  controls_->changed.SignalAll();
}

void FaultInjectionFileSystem::SetFreeSpace(uint64_t bytes) {
  base::MutexLock lock(&controls_->mu);
  controls_->free_space = bytes;
}

void FaultInjectionFileSystem::SetUnlimitedSpace() {
  base::MutexLock lock(&controls_->mu);
  controls_->free_space.reset();
}

uint64_t FaultInjectionFileSystem::FreeSpace() const {
  base::MutexLock lock(&controls_->mu);
  return controls_->free_space.value_or(std::numeric_limits<uint64_t>::max());
}

void FaultInjectionFileSystem::CutPower() {
  base::MutexLock lock(&controls_->mu);
  controls_->power_off = true;
}

absl::Status FaultInjectionFileSystem::RestorePower(const KeptUnsynced& kept) {
  base::MutexLock lock(&controls_->mu);
  const rocksdb::IOOptions options;
  absl::Status result;
  auto failed = [&result](const rocksdb::IOStatus& status,
                          const std::string& what) {
    if (!status.ok() && result.ok()) {
      result =
          absl::UnavailableError(absl::StrCat(what, ": ", status.ToString()));
    }
  };
  for (const auto& [name, state] : controls_->files) {
    if (!state.entry_durable) {
      rocksdb::IOStatus deleted = target()->DeleteFile(name, options, nullptr);
      if (!deleted.IsNotFound()) failed(deleted, "removing " + name);
      continue;
    }
    uint64_t size = 0;
    rocksdb::IOStatus sized =
        target()->GetFileSize(name, options, &size, nullptr);
    if (sized.IsNotFound()) continue;
    failed(sized, "sizing " + name);
    if (sized.ok() && size > state.synced) {
      const uint64_t unsynced = size - state.synced;
      const uint64_t keep =
          kept ? std::min(kept(name, unsynced), unsynced) : uint64_t{0};
      if (keep < unsynced) {
        failed(TruncateFile(*target(), name, state.synced + keep),
               "truncating " + name);
      }
    }
  }
  controls_->files.clear();
  controls_->power_off = false;
  return result;
}

rocksdb::IOStatus FaultInjectionFileSystem::Track(
    const std::string& name, bool reopened, rocksdb::IOStatus opened,
    std::unique_ptr<rocksdb::FSWritableFile>* file) {
  if (!opened.ok()) return opened;
  uint64_t size = 0;
  if (reopened) {
    rocksdb::IOStatus sized =
        target()->GetFileSize(name, rocksdb::IOOptions(), &size, nullptr);
    if (!sized.ok()) return sized;
  }
  {
    base::MutexLock lock(&controls_->mu);
    if (!reopened) {
      controls_->files[name] = Controls::FileState{};
    } else if (controls_->files.count(name) == 0) {
      // A file from before this file system wrote it: durable as it is.
      controls_->files[name] = Controls::FileState{size, size, true};
    }
  }
  *file = std::make_unique<TrackedFile>(std::move(*file), name, controls_);
  return opened;
}

rocksdb::IOStatus FaultInjectionFileSystem::NewWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  return Track(name, /*reopened=*/false,
               target()->NewWritableFile(name, options, file, debug), file);
}

rocksdb::IOStatus FaultInjectionFileSystem::ReopenWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  const bool existed =
      target()->FileExists(name, rocksdb::IOOptions(), debug).ok();
  return Track(name, /*reopened=*/existed,
               target()->ReopenWritableFile(name, options, file, debug), file);
}

rocksdb::IOStatus FaultInjectionFileSystem::ReuseWritableFile(
    const std::string& name, const std::string& old_name,
    const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  rocksdb::IOStatus opened =
      target()->ReuseWritableFile(name, old_name, options, file, debug);
  if (!opened.ok()) return opened;
  // A rename of old_name, then writes from its start.
  bool durable = true;
  {
    base::MutexLock lock(&controls_->mu);
    auto it = controls_->files.find(old_name);
    if (it != controls_->files.end()) {
      durable = it->second.entry_durable;
      controls_->files.erase(it);
    }
    controls_->files[name] = Controls::FileState{0, 0, durable};
  }
  *file = std::make_unique<TrackedFile>(std::move(*file), name, controls_);
  return opened;
}

rocksdb::IOStatus FaultInjectionFileSystem::NewDirectory(
    const std::string& name, const rocksdb::IOOptions& options,
    std::unique_ptr<rocksdb::FSDirectory>* dir,
    rocksdb::IODebugContext* debug) {
  rocksdb::IOStatus opened = target()->NewDirectory(name, options, dir, debug);
  if (opened.ok()) {
    *dir = std::make_unique<TrackedDirectory>(std::move(*dir), name, controls_);
  }
  return opened;
}

rocksdb::IOStatus FaultInjectionFileSystem::DeleteFile(
    const std::string& name, const rocksdb::IOOptions& options,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  rocksdb::IOStatus status = target()->DeleteFile(name, options, debug);
  if (status.ok()) {
    base::MutexLock lock(&controls_->mu);
    controls_->files.erase(name);
  }
  return status;
}

rocksdb::IOStatus FaultInjectionFileSystem::RenameFile(
    const std::string& source, const std::string& target_name,
    const rocksdb::IOOptions& options, rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  rocksdb::IOStatus status =
      target()->RenameFile(source, target_name, options, debug);
  if (!status.ok()) return status;
  base::MutexLock lock(&controls_->mu);
  auto it = controls_->files.find(source);
  if (it == controls_->files.end()) {
    controls_->files.erase(target_name);  // durable as it is
  } else {
    controls_->files[target_name] = it->second;
    controls_->files.erase(source);
  }
  return status;
}

rocksdb::IOStatus FaultInjectionFileSystem::Truncate(
    const std::string& name, size_t size, const rocksdb::IOOptions& options,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  rocksdb::IOStatus status = target()->Truncate(name, size, options, debug);
  if (status.ok()) {
    base::MutexLock lock(&controls_->mu);
    auto it = controls_->files.find(name);
    if (it != controls_->files.end()) {
      it->second.size = std::min<uint64_t>(it->second.size, size);
      it->second.synced = std::min<uint64_t>(it->second.synced, size);
    }
  }
  return status;
}

rocksdb::IOStatus FaultInjectionFileSystem::CreateDir(
    const std::string& name, const rocksdb::IOOptions& options,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  return target()->CreateDir(name, options, debug);
}

rocksdb::IOStatus FaultInjectionFileSystem::CreateDirIfMissing(
    const std::string& name, const rocksdb::IOOptions& options,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  return target()->CreateDirIfMissing(name, options, debug);
}

rocksdb::IOStatus FaultInjectionFileSystem::DeleteDir(
    const std::string& name, const rocksdb::IOOptions& options,
    rocksdb::IODebugContext* debug) {
  if (rocksdb::IOStatus s = controls_->PowerCheck(); !s.ok()) return s;
  return target()->DeleteDir(name, options, debug);
}

rocksdb::IOStatus FaultInjectionFileSystem::GetFreeSpace(
    const std::string& path, const rocksdb::IOOptions& options,
    uint64_t* free_space, rocksdb::IODebugContext* debug) {
  {
    base::MutexLock lock(&controls_->mu);
    if (controls_->free_space.has_value()) {
      *free_space = *controls_->free_space;
      return rocksdb::IOStatus::OK();
    }
  }
  return target()->GetFreeSpace(path, options, free_space, debug);
}

std::unique_ptr<rocksdb::Env> NewFaultInjectionEnv(
    std::shared_ptr<FaultInjectionFileSystem> file_system) {
  return rocksdb::NewCompositeEnv(file_system);
}

}  // namespace cairn::persistence::testing
