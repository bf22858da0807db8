#ifndef CAIRN_PERSISTENCE_ROCKSDB_OPTIONS_H_
#define CAIRN_PERSISTENCE_ROCKSDB_OPTIONS_H_

#include <string>

namespace rocksdb {
class Env;
}  // namespace rocksdb

namespace cairn::persistence {

// Settings of the RocksDB journal and snapshot store plugins, which share
// one database. Each field names the config key it is meant to be read
// from (under the plugin's config block, e.g.
// `akka.persistence.journal.rocksdb`).
struct RocksDbOptions {
  // `dir`: the database directory; created (with its parents' existence
  // assumed) when missing if create_if_missing.
  std::string path;
  // `fsync`: every group commit is synced to disk before any of its writes
  // is acknowledged. Off, an acknowledged write survives a crash of the
  // process but not of the machine.
  bool fsync = true;
  // `create-if-missing`.
  bool create_if_missing = true;
  // `reader-threads`: threads for replays and sequence-number reads (at
  // least 1), so that reads never wait behind the writer, except a read of
  // a stream with a write or delete in flight, which waits for it
  // (journal.h's read-after-write rule).
  int reader_threads = 2;
  // Not from config: the file-system seam. nullptr means
  // rocksdb::Env::Default(); otherwise not owned, and it must outlive every
  // journal and snapshot store on the database. Tests pass an Env over a
  // fault-injecting rocksdb::FileSystemWrapper (rocksdb::NewCompositeEnv).
  rocksdb::Env* env = nullptr;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_ROCKSDB_OPTIONS_H_
