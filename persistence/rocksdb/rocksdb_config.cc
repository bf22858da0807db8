#include "persistence/rocksdb/rocksdb_config.h"

#include <string>

#include "base/string_view.h"

namespace cairn::persistence {

absl::StatusOr<RocksDbOptions> RocksDbOptionsFromConfig(
    const hocon::Config& config, std::string_view block) {
  const std::string prefix = base::StrCat(block, ".");
  RocksDbOptions options;
  absl::StatusOr<std::string> dir = config.GetString(prefix + "dir");
  if (!dir.ok()) return dir.status();
  options.path = *std::move(dir);
  absl::StatusOr<bool> fsync = config.GetBool(prefix + "fsync");
  if (!fsync.ok()) return fsync.status();
  options.fsync = *fsync;
  absl::StatusOr<bool> create = config.GetBool(prefix + "create-if-missing");
  if (!create.ok()) return create.status();
  options.create_if_missing = *create;
  absl::StatusOr<int> readers = config.GetInt(prefix + "reader-threads");
  if (!readers.ok()) return readers.status();
  if (*readers < 1) {
    return absl::InvalidArgumentError(base::StrCat(
        prefix, "reader-threads: must be at least 1, not ", *readers));
  }
  options.reader_threads = *readers;
  absl::StatusOr<std::string> mode = config.GetString(prefix + "mode");
  if (!mode.ok()) return mode.status();
  if (*mode == "read-write") {
    options.mode = RocksDbMode::kReadWrite;
  } else if (*mode == "read-only") {
    options.mode = RocksDbMode::kReadOnly;
  } else if (*mode == "secondary") {
    options.mode = RocksDbMode::kSecondary;
  } else {
    return absl::InvalidArgumentError(
        base::StrCat(prefix, "mode: '", *mode,
                     "' is not read-write, read-only or secondary"));
  }
  absl::StatusOr<std::string> secondary =
      config.GetString(prefix + "secondary-dir");
  if (!secondary.ok()) return secondary.status();
  options.secondary_path = *std::move(secondary);
  absl::StatusOr<absl::Duration> catch_up =
      config.GetDuration(prefix + "catch-up-interval");
  if (!catch_up.ok()) return catch_up.status();
  if (*catch_up < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        base::StrCat(prefix, "catch-up-interval: must not be negative"));
  }
  options.catch_up_interval = absl::ToChronoMilliseconds(*catch_up);
  return options;
}

}  // namespace cairn::persistence
