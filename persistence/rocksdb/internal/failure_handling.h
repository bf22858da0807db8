#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_FAILURE_HANDLING_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_FAILURE_HANDLING_H_

#include "persistence/rocksdb/rocksdb_options.h"
#include "rocksdb/options.h"

namespace cairn::persistence::rocksdb_internal {

// Sets how a database of the RocksDB plugins reports and comes back from
// failures (a full disk, an I/O error):
// - RocksDB's own messages go to options.log (NewRocksDbLogger), never to
//   a LOG file in the store directory.
// - RocksDB never resumes by itself after a background error: neither its
//   SstFileManager's recovery from a full disk nor its retries of
//   retryable I/O errors. A database that failed a write is then never
//   written again: Db closes and reopens it (db.h), because RocksDB 7.8.3
//   can resume with the WAL writer that failed still in place, and a write
//   to that aborts the process.
void SetFailureHandling(const RocksDbOptions& options,
                        rocksdb::DBOptions& db_options);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_FAILURE_HANDLING_H_
