#include "examples/bank/store_copy.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace cairn::examples::bank {
namespace {

namespace fs = std::filesystem;

constexpr char kPrefix[] = "cairn-bank-read-";
constexpr char kInUse[] = "in-use";
// What opening a store writes besides table files, at most (a MANIFEST,
// an OPTIONS file, a new write-ahead log, the info LOG), with room to spare.
constexpr uint64_t kOpeningSlack = 1 << 20;

// RocksDB's lock and its human-readable logs: not part of the data.
bool IsDatabaseFile(const std::string& name) {
  return name != "LOCK" && name != "LOG" && !absl::StartsWith(name, "LOG.old");
}

std::string Bytes(uint64_t n) {
  if (n < 1024) return absl::StrCat(n, " bytes");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(n) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.1f %s", value, units[unit]);
}

// Where the copies go: $TMPDIR, or /tmp without it.
struct TempBase {
  std::string path;
  bool from_env = false;

  static TempBase Get() {
    const char* tmp = std::getenv("TMPDIR");
    if (tmp != nullptr && *tmp != '\0') return TempBase{tmp, true};
    return TempBase{"/tmp", false};
  }
  std::string Name() const {
    return from_env ? absl::StrCat("TMPDIR (", path, ")")
                    : absl::StrCat(path, " (TMPDIR is not set)");
  }
  // Free bytes for this process there, or -1 if unknown.
  int64_t Free() const {
    struct statvfs fs_stats = {};
    if (::statvfs(path.c_str(), &fs_stats) != 0) return -1;
    return static_cast<int64_t>(fs_stats.f_bavail) *
           static_cast<int64_t>(fs_stats.f_frsize);
  }
  absl::Status Unusable(const std::string& why, uint64_t bytes) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot copy the store to ", Name(), ": ", why,
        ". `balances` reads a copy of the store (", Bytes(bytes),
        "), made there so that the store itself is never written; set "
        "TMPDIR to a writable directory with room for it"));
  }
};

// The copies of processes that are gone: their `in-use` file is no longer
// locked. A directory without one is left alone: it may be a copy being
// made right now (the file appears, already locked, by a rename).
void RemoveLeftovers(const std::string& base) {
  std::error_code error;
  for (fs::directory_iterator it(base, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code ignored;
    if (!absl::StartsWith(it->path().filename().string(), kPrefix) ||
        !it->is_directory(ignored) || it->is_symlink(ignored)) {
      continue;
    }
    const std::string in_use = (it->path() / kInUse).string();
    const int fd = ::open(in_use.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0)
      fs::remove_all(it->path(), ignored);
    ::close(fd);
  }
}

// Makes root/in-use, locked by the returned descriptor, or returns -1 with
// errno set. Locked before it is given its name, so that RemoveLeftovers
// never finds it unlocked while this process lives.
int LockInUse(const std::string& root) {
  const std::string made = absl::StrCat(root, "/", kInUse, ".new");
  const int fd =
      ::open(made.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX) != 0 ||
      ::rename(made.c_str(), absl::StrCat(root, "/", kInUse).c_str()) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// Copies the file `from` to the new file `to`. On failure, the errno and
// whether it was the writing that failed.
struct CopyFailure {
  int error = 0;
  bool writing = false;
};
CopyFailure CopyFile(const std::string& from, const std::string& to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return {errno, false};
  const int out =
      ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0) {
    const int saved = errno;
    ::close(in);
    return {saved, true};
  }
  CopyFailure failure;
  std::vector<char> buffer(1 << 20);
  while (failure.error == 0) {
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno != EINTR) failure = {errno, false};
      continue;
    }
    for (ssize_t written = 0; written < n && failure.error == 0;) {
      const ssize_t w = ::write(out, buffer.data() + written, n - written);
      if (w >= 0) {
        written += w;
      } else if (errno != EINTR) {
        failure = {errno, true};
      }
    }
  }
  if (::close(out) != 0 && failure.error == 0) failure = {errno, true};
  ::close(in);
  return failure;
}

bool IsOutOfRoom(int error) { return error == ENOSPC || error == EDQUOT; }

}  // namespace

absl::StatusOr<StoreCopy> StoreCopy::Make(const std::string& dir) {
  const TempBase base = TempBase::Get();
  RemoveLeftovers(base.path);

  std::vector<fs::path> files;
  uint64_t bytes = 0;      // to copy
  uint64_t log_bytes = 0;  // of them, write-ahead logs
  std::error_code error;
  fs::directory_iterator it(dir, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    std::error_code not_regular;
    if (!it->is_regular_file(not_regular) ||
        !IsDatabaseFile(it->path().filename().string())) {
      continue;
    }
    files.push_back(it->path());
    std::error_code no_size;
    const uintmax_t size = it->file_size(no_size);
    if (no_size) continue;
    bytes += size;
    if (it->path().extension() == ".log") log_bytes += size;
  }
  if (error) {
    return absl::UnavailableError(
        absl::StrCat("reading the store in ", dir, ": ", error.message()));
  }

  const fs::file_status status = fs::status(base.path, error);
  if (!fs::exists(status)) return base.Unusable("it does not exist", bytes);
  if (!fs::is_directory(status)) {
    return base.Unusable("it is not a directory", bytes);
  }
  // Room for the copy and for what opening it writes: the write-ahead
  // logs flushed to table files (no bigger than the logs), a new MANIFEST,
  // OPTIONS file, log and info LOG. Checked first because RocksDB should
  // not run out of room: this build of it aborts on some write errors
  // (an assertion in WritableFileWriter) instead of returning them.
  const uint64_t needed = bytes + log_bytes + kOpeningSlack;
  if (const int64_t free = base.Free();
      free >= 0 && static_cast<uint64_t>(free) < needed) {
    return base.Unusable(
        absl::StrCat("only ", Bytes(free), " free, ", Bytes(needed), " needed"),
        bytes);
  }
  std::string pattern = absl::StrCat(base.path, "/", kPrefix, "XXXXXX");
  if (::mkdtemp(pattern.data()) == nullptr) {
    return base.Unusable(std::strerror(errno), bytes);
  }
  const int lock_fd = LockInUse(pattern);
  if (lock_fd < 0) {
    const int saved = errno;
    fs::remove_all(pattern, error);
    return base.Unusable(std::strerror(saved), bytes);
  }
  StoreCopy copy(pattern, lock_fd);
  if (!fs::create_directory(copy.path_, error)) {
    return base.Unusable(error.message(), bytes);
  }
  for (const fs::path& file : files) {
    const std::string to = (fs::path(copy.path_) / file.filename()).string();
    const CopyFailure failure = CopyFile(file.string(), to);
    if (failure.error == 0) continue;
    if (!failure.writing) {
      return absl::UnavailableError(absl::StrCat(
          "reading ", file.string(), ": ", std::strerror(failure.error)));
    }
    if (IsOutOfRoom(failure.error)) {
      return base.Unusable(absl::StrCat("it ran out of room (",
                                        std::strerror(failure.error), ")"),
                           bytes);
    }
    return base.Unusable(
        absl::StrCat("writing ", to, ": ", std::strerror(failure.error)),
        bytes);
  }
  return copy;
}

StoreCopy::StoreCopy(std::string root, int lock_fd)
    : root_(std::move(root)),
      path_(absl::StrCat(root_, "/store")),
      lock_fd_(lock_fd),
      remove_on_signal_(std::make_unique<RemoveOnSignal>(root_)) {}

StoreCopy::StoreCopy(StoreCopy&& other) noexcept
    : root_(std::exchange(other.root_, "")),
      path_(std::exchange(other.path_, "")),
      lock_fd_(std::exchange(other.lock_fd_, -1)),
      remove_on_signal_(std::move(other.remove_on_signal_)) {}

StoreCopy& StoreCopy::operator=(StoreCopy&& other) noexcept {
  if (this != &other) {
    Remove();
    root_ = std::exchange(other.root_, "");
    path_ = std::exchange(other.path_, "");
    lock_fd_ = std::exchange(other.lock_fd_, -1);
    remove_on_signal_ = std::move(other.remove_on_signal_);
  }
  return *this;
}

StoreCopy::~StoreCopy() { Remove(); }

void StoreCopy::Remove() {
  if (root_.empty()) return;
  // A copy that cannot be removed now is removed by the next Make (its
  // lock goes with this process): no reason to fail.
  std::error_code ignored;
  fs::remove_all(root_, ignored);
  ::close(lock_fd_);
  lock_fd_ = -1;
  remove_on_signal_.reset();  // after the removal: a signal meanwhile removes
  root_.clear();
  path_.clear();
}

absl::Status StoreCopy::Explain(const absl::Status& status,
                                const std::string& dir) const {
  if (absl::StrContains(status.message(), std::strerror(ENOSPC)) ||
      absl::StrContains(status.message(), std::strerror(EDQUOT))) {
    const TempBase base = TempBase::Get();
    const int64_t free = base.Free();
    return absl::InvalidArgumentError(absl::StrCat(
        "the copy of the store in ", base.Name(), " ran out of room",
        free >= 0 ? absl::StrCat(" (", Bytes(free), " free)") : "",
        ": opening it writes to it as well. Set TMPDIR to a directory with "
        "more room. (",
        status.message(), ")"));
  }
  return absl::Status(
      status.code(),
      absl::StrReplaceAll(std::string(status.message()), {{path_, dir}}));
}

}  // namespace cairn::examples::bank
