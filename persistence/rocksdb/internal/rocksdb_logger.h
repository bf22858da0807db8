#ifndef CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_LOGGER_H_
#define CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_LOGGER_H_

#include <memory>
#include <string>

#include "persistence/rocksdb/rocksdb_options.h"
#include "rocksdb/env.h"

namespace cairn::persistence::rocksdb_internal {

// RocksDB's info log for the store at `path`: warnings and errors go to
// `sink` (stderr, `[rocksdb WARN] PATH: MESSAGE`, when it is empty); info,
// debug and header messages are dropped without being formatted.
//
// Given as DBOptions::info_log, it keeps RocksDB from writing a LOG file in
// the store directory. That file is on the same disk as the data: when the
// disk fills, RocksDB's writer of it fails, and the next message RocksDB
// logs about the failed write (from its error handler) goes to that failed
// writer, where Debian's librocksdb 7.8.3 asserts and aborts the process.
//
// Thread safety: RocksDB calls it from any of its threads; the sink is
// called concurrently.
std::shared_ptr<rocksdb::Logger> NewRocksDbLogger(RocksDbLogSink sink,
                                                  std::string path);

}  // namespace cairn::persistence::rocksdb_internal

#endif  // CAIRN_PERSISTENCE_ROCKSDB_INTERNAL_ROCKSDB_LOGGER_H_
