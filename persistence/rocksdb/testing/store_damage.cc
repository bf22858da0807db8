#include "persistence/rocksdb/testing/store_damage.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/testing/store_families.h"

namespace cairn::persistence::testing {

std::map<std::string, std::string> DirectoryFingerprint(
    const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string relative =
        std::filesystem::relative(entry.path(), dir).string();
    if (!entry.is_regular_file()) {
      files[relative + "/"] = "";
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    files[relative] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return files;
}

std::vector<std::string> WalFiles(const std::string& dir) {
  std::vector<std::string> logs;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".log") logs.push_back(entry.path());
  }
  // The numbers have the same width, so the names sort as numbers.
  std::sort(logs.begin(), logs.end());
  return logs;
}

namespace {

void Overwrite(const std::string& path, uint64_t offset,
               const std::string& bytes) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(file.is_open()) << path;
  file.seekp(static_cast<std::streamoff>(offset));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(file.good()) << path;
}

}  // namespace

void FlipByte(const std::string& path, uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  char byte = 0;
  ASSERT_TRUE(in.get(byte)) << path << " has no byte " << offset;
  Overwrite(path, offset, std::string(1, static_cast<char>(~byte)));
}

void ZeroBytes(const std::string& path, uint64_t offset, uint64_t count) {
  Overwrite(path, offset, std::string(count, '\0'));
}

RawStore::RawStore(const std::string& path) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families = StoreColumnFamilies();
  rocksdb::DB* db = nullptr;
  status_ =
      rocksdb::DB::Open(rocksdb::DBOptions(), path, families, &handles_, &db);
  db_.reset(db);
}

RawStore::~RawStore() {
  if (db_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  db_->Close().PermitUncheckedError();
}

void RawStore::Put(int family, const std::string& key,
                   const std::string& value) {
  rocksdb::Status status =
      db_->Put(rocksdb::WriteOptions(), handles_.at(family), key, value);
  EXPECT_OK(status);
}

void RawStore::Flush(int family) {
  rocksdb::Status status =
      db_->Flush(rocksdb::FlushOptions(), handles_.at(family));
  EXPECT_OK(status);
}

struct TearingFileSystem::Controls {
  base::Mutex mu;
  bool tear ABSL_GUARDED_BY(mu) = false;
  bool fail ABSL_GUARDED_BY(mu) = false;

  bool Failing() {
    base::MutexLock lock(&mu);
    return fail;
  }
  bool TakeTear() {
    base::MutexLock lock(&mu);
    return std::exchange(tear, false);
  }
};

namespace {

rocksdb::IOStatus Injected() {
  return rocksdb::IOStatus::IOError("injected write failure");
}

class TearingFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  TearingFile(std::unique_ptr<rocksdb::FSWritableFile> file, bool is_wal,
              std::shared_ptr<TearingFileSystem::Controls> controls)
      : FSWritableFileOwnerWrapper(std::move(file)),
        is_wal_(is_wal),
        controls_(std::move(controls)) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* debug) override {
    if (is_wal_ && controls_->TakeTear()) {
      const rocksdb::Slice half(data.data(), data.size() / 2);
      rocksdb::IOStatus written =
          FSWritableFileOwnerWrapper::Append(half, options, debug);
      if (written.ok())
        written = FSWritableFileOwnerWrapper::Flush(options, debug);
      return written.ok() ? Injected() : written;
    }
    if (controls_->Failing()) return Injected();
    return FSWritableFileOwnerWrapper::Append(data, options, debug);
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data,
                           const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& /*info*/,
                           rocksdb::IODebugContext* debug) override {
    return Append(data, options, debug);
  }
  rocksdb::IOStatus Flush(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* debug) override {
    if (controls_->Failing()) return Injected();
    return FSWritableFileOwnerWrapper::Flush(options, debug);
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options,
                         rocksdb::IODebugContext* debug) override {
    if (controls_->Failing()) return Injected();
    return FSWritableFileOwnerWrapper::Sync(options, debug);
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* debug) override {
    if (controls_->Failing()) return Injected();
    return FSWritableFileOwnerWrapper::Fsync(options, debug);
  }

 private:
  const bool is_wal_;
  const std::shared_ptr<TearingFileSystem::Controls> controls_;
};

}  // namespace

TearingFileSystem::TearingFileSystem()
    : FileSystemWrapper(rocksdb::FileSystem::Default()),
      controls_(std::make_shared<Controls>()) {}

TearingFileSystem::~TearingFileSystem() = default;

void TearingFileSystem::TearNextWalAppend() {
  base::MutexLock lock(&controls_->mu);
  controls_->tear = true;
}

void TearingFileSystem::SetFailWrites(bool fail) {
  base::MutexLock lock(&controls_->mu);
  controls_->fail = fail;
}

rocksdb::IOStatus TearingFileSystem::Wrap(
    const std::string& name, rocksdb::IOStatus opened,
    std::unique_ptr<rocksdb::FSWritableFile>* file) {
  if (!opened.ok()) return opened;
  const bool is_wal =
      name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
  *file = std::make_unique<TearingFile>(std::move(*file), is_wal, controls_);
  return opened;
}

rocksdb::IOStatus TearingFileSystem::NewWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  if (controls_->Failing()) return Injected();
  return Wrap(name, target()->NewWritableFile(name, options, file, debug),
              file);
}

rocksdb::IOStatus TearingFileSystem::ReopenWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* file,
    rocksdb::IODebugContext* debug) {
  if (controls_->Failing()) return Injected();
  return Wrap(name, target()->ReopenWritableFile(name, options, file, debug),
              file);
}

}  // namespace cairn::persistence::testing
