#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_DIRECTORY_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_DIRECTORY_H_

// What a store's directory holds, looked at before RocksDB opens it, so
// that an open that cannot work says what is wrong and changes nothing.
// (RocksDB reports a directory it cannot read as "not found", and creates
// a new, empty database in a directory whose CURRENT file is missing, over
// the files of the store that was there.)
//
// Thread safety: the function shares no state.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rocksdb/env.h"

namespace cairn::persistence::rocksdb_internal {

struct StoreDirectory {
  bool exists = false;       // the directory
  bool has_current = false;  // RocksDB's CURRENT file: there is a database
};

// Looks at `path` through `env`. Errors, each naming the path:
// PermissionDenied if the directory cannot be read; FailedPrecondition if
// `path` is not a directory; DataLoss if it has no CURRENT file but holds
// files of a store (a MANIFEST, write-ahead logs, table files or OPTIONS),
// which RocksDB would otherwise replace with a new store; Unavailable for
// other I/O errors.
[[nodiscard]] absl::StatusOr<StoreDirectory> InspectStoreDirectory(
    rocksdb::Env* env, const std::string& path);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_STORE_DIRECTORY_H_
