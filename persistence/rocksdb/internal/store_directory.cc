#include "persistence/rocksdb/internal/store_directory.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_join.h"
#include "base/string_view.h"
#include "persistence/rocksdb/internal/wal_file.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

bool StartsWith(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Files RocksDB writes once a store exists. LOCK, LOG and IDENTITY are not
// among them: a first open cut short may leave those alone.
bool IsStoreFile(const std::string& name) {
  return StartsWith(name, "MANIFEST-") || StartsWith(name, "OPTIONS-") ||
         WalFileNumber(name).has_value() || EndsWith(name, ".sst") ||
         EndsWith(name, ".blob");
}

// Why `path` cannot be listed, asked of the operating system: RocksDB's
// Env reports "permission denied" and "not a directory" as NotFound.
absl::StatusOr<StoreDirectory> ExplainUnlistable(
    const std::string& path, const rocksdb::Status& listed) {
  std::error_code error;
  const std::filesystem::file_status status =
      std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    return StoreDirectory{};
  }
  if (!error && status.type() != std::filesystem::file_type::directory) {
    return absl::FailedPreconditionError(
        base::StrCat("RocksDB store ", path, " is not a directory"));
  }
  if (!error) {
    std::filesystem::directory_iterator it(path, error);
  }
  if (error == std::errc::permission_denied) {
    return absl::PermissionDeniedError(base::StrCat(
        "cannot read the store directory ", path, ": ", error.message()));
  }
  if (error) {
    return absl::UnavailableError(base::StrCat(
        "cannot read the store directory ", path, ": ", error.message()));
  }
  return absl::UnavailableError(base::StrCat("cannot read the store directory ",
                                             path, ": ", listed.ToString()));
}

}  // namespace

absl::StatusOr<StoreDirectory> InspectStoreDirectory(rocksdb::Env* env,
                                                     const std::string& path) {
  std::vector<std::string> children;
  rocksdb::Status listed = env->GetChildren(path, &children);
  if (!listed.ok()) return ExplainUnlistable(path, listed);
  StoreDirectory directory;
  directory.exists = true;
  directory.has_current =
      std::find(children.begin(), children.end(), "CURRENT") != children.end();
  if (directory.has_current) return directory;
  std::vector<std::string> store_files;
  for (const std::string& name : children) {
    if (IsStoreFile(name)) store_files.push_back(name);
  }
  if (store_files.empty()) return directory;
  std::sort(store_files.begin(), store_files.end());
  std::vector<std::string> manifests;
  for (const std::string& name : store_files) {
    if (StartsWith(name, "MANIFEST-")) manifests.push_back(name);
  }
  constexpr size_t kNamed = 5;
  std::string named = absl::StrJoin(
      store_files.begin(),
      store_files.begin() + std::min(kNamed, store_files.size()), ", ");
  if (store_files.size() > kNamed) {
    named += base::StrCat(" and ", store_files.size() - kNamed, " more");
  }
  std::string hint =
      manifests.size() == 1
          ? base::StrCat(
                " CURRENT names the live MANIFEST: if the store is "
                "otherwise intact, a CURRENT file holding the line '",
                manifests.front(), "' restores it.")
          : std::string(
                " CURRENT names the live MANIFEST: restore it from "
                "a backup.");
  return absl::DataLossError(base::StrCat(
      "RocksDB store ", path,
      " is damaged: it has no CURRENT file but holds the store files ", named,
      ". Refusing to open it or to create a new store over it; "
      "nothing was changed.",
      hint));
}

}  // namespace cairn::persistence::rocksdb_internal
