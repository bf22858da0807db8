#include "examples/bank/reading.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "examples/bank/data_dir.h"

namespace cairn::examples::bank {
namespace {

// A new empty directory under $TMPDIR (/tmp without it).
absl::StatusOr<std::string> MakeTempDir() {
  std::string pattern = absl::StrCat(TempRoot(), "/cairn-bank-read-XXXXXX");
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  if (::mkdtemp(path.data()) == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot make a directory for reading the store beside its "
                     "writer (",
                     pattern, "): ", std::strerror(errno)));
  }
  return std::string(path.data());
}

}  // namespace

StoreToRead::~StoreToRead() {
  if (secondary_dir_.empty()) return;
  std::error_code error;
  std::filesystem::remove_all(secondary_dir_, error);
  // Nothing to do about a failure: it is a temporary directory.
}

absl::StatusOr<std::unique_ptr<StoreToRead>> OpenStoreToRead(
    const StoreLocation& store, const char* command) {
  StoreOptions options{store.data.path,
                       /*fsync=*/false,
                       /*create_if_missing=*/false,
                       /*read_only=*/true,
                       store.postgres_url,
                       store.schema};
  if (store.on_postgres()) {
    return std::make_unique<StoreToRead>(std::move(options), "");
  }
  const DataDir& data = store.data;
  if (data.is_default) {
    std::fprintf(stderr, "%s: no --data given, using %s\n", command,
                 data.path.c_str());
  }
  if (absl::Status s = CheckReadableStore(data.path); !s.ok()) return s;
  const absl::Status in_use = CheckNotInUse(data.path);
  if (in_use.ok()) {
    return std::make_unique<StoreToRead>(std::move(options), "");
  }
  // Another process writes it: a RocksDB secondary instance follows a
  // store its primary is writing (a read-only open of it would be too,
  // but may fail on files the writer removes meanwhile).
  absl::StatusOr<std::string> dir = MakeTempDir();
  if (!dir.ok()) return dir.status();
  options.secondary_dir = *dir;
  std::fprintf(stderr,
               "%s: %s; read as it is at %s, while it goes on changing\n",
               command, std::string(in_use.message()).c_str(),
               absl::FormatTime("%Y-%m-%d %H:%M:%E3S %Z", absl::Now(),
                                absl::LocalTimeZone())
                   .c_str());
  return std::make_unique<StoreToRead>(std::move(options), *std::move(dir));
}

}  // namespace cairn::examples::bank
