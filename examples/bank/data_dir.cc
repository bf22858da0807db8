#include "examples/bank/data_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace cairn::examples::bank {
namespace {

namespace fs = std::filesystem;

absl::Status Unusable(const std::string& dir, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("cannot use data directory ", dir, ": ", why));
}

}  // namespace

std::string TempRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

DataDir ResolveDataDir(const std::string& flag) {
  if (flag.empty()) {
    return DataDir{(fs::path(TempRoot()) / "cairn-bank").string(), true};
  }
  fs::path path(flag);
  const char* start = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.is_relative() && start != nullptr && *start != '\0') {
    path = fs::path(start) / path;
  }
  return DataDir{path.lexically_normal().string(), false};
}

absl::Status PrepareForWriting(const std::string& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return Unusable(dir, error.message());
  if (!fs::is_directory(dir, error)) return Unusable(dir, "not a directory");
  if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) {
    return Unusable(dir, std::strerror(errno));
  }
  // A store already there must be writable too, file by file: RocksDB
  // opens some of its files for writing (LOCK first), and a store someone
  // made read-only is not one to write to.
  if (!fs::exists(fs::path(dir) / "CURRENT", error)) return absl::OkStatus();
  for (fs::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code not_regular;
    if (!it->is_regular_file(not_regular)) continue;
    if (::access(it->path().c_str(), R_OK | W_OK) != 0) {
      return Unusable(
          dir, absl::StrCat("its store's file ", it->path().filename().string(),
                            ": ", std::strerror(errno)));
    }
  }
  if (error) return Unusable(dir, error.message());
  return absl::OkStatus();
}

absl::Status CheckReadableStore(const std::string& dir) {
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);
  if (!fs::exists(status)) return Unusable(dir, "it does not exist");
  if (!fs::is_directory(status)) return Unusable(dir, "not a directory");
  if (::access(dir.c_str(), R_OK | X_OK) != 0) {
    return Unusable(dir, std::strerror(errno));
  }
  const std::string current = (fs::path(dir) / "CURRENT").string();
  if (::access(current.c_str(), R_OK) != 0) {
    return Unusable(dir,
                    "no bank store in it (run `bank demo` or `bank load` "
                    "first)");
  }
  return absl::OkStatus();
}

absl::Status CheckNotInUse(const std::string& dir) {
  const std::string lock_file = (fs::path(dir) / "LOCK").string();
  const int fd = ::open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::OkStatus();  // no store yet, or nobody opened it
  struct flock lock = {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  const int result = ::fcntl(fd, F_GETLK, &lock);
  ::close(fd);
  if (result == 0 && lock.l_type != F_UNLCK) {
    return absl::FailedPreconditionError(
        absl::StrCat("the store in ", dir, " is in use by process ", lock.l_pid,
                     " (another bank command?)"));
  }
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank
