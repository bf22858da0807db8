#ifndef CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_OPTIONS_H_
#define CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_OPTIONS_H_

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace rocksdb {
class Env;
}  // namespace rocksdb

namespace cairn::persistence {

// How bad a message from RocksDB is. RocksDB's info and debug messages are
// dropped; warnings and errors (a failed write, a background error, its
// recovery) are kept.
enum class RocksDbLogLevel { kWarning, kError };

// Where RocksDB's own messages go instead of a LOG file in the store
// directory. Called on RocksDB's threads, any number at once.
using RocksDbLogSink =
    std::function<void(RocksDbLogLevel level, std::string_view message)>;

// How a RocksDbStore opens its database (config key `mode`).
enum class RocksDbMode {
  // `read-write`, the default: the one process that writes the store. It
  // takes RocksDB's lock on the directory, so no other process can open the
  // store read-write meanwhile.
  kReadWrite,
  // `read-only`: the store as it was when it was opened, never anything
  // written after. Nothing on disk changes, not even RocksDB's LOCK or info
  // log; takes no lock, so it works while another process writes the store
  // (the store must exist: create_if_missing does not apply). Every write,
  // delete and snapshot save fails with FailedPrecondition naming the store.
  kReadOnly,
  // `secondary`: a RocksDB secondary instance that follows a store another
  // process (the primary) is writing. It sees what the primary had written
  // when it opened, and what it has written since at each catch-up
  // (RocksDbStore::CatchUpWithPrimary, or every catch_up_interval). Nothing
  // in the store's directory changes; RocksDB keeps the instance's own
  // state in secondary_path. Writes fail as for kReadOnly.
  kSecondary,
};

// Settings of the RocksDB journal and snapshot store plugins, which share
// one database. Each field names the config key it is meant to be read
// from (under the plugin's config block, e.g.
// `akka.persistence.journal.rocksdb`).
struct RocksDbOptions {
  // `dir`: the database directory; created (with its parents' existence
  // assumed) when missing if create_if_missing.
  std::string path;
  // `fsync`: every group commit is synced to disk before any of its writes
  // is acknowledged, so an acknowledged write survives a power loss. Off,
  // it survives a crash of the process; a power loss or OS crash can lose
  // the writes acknowledged since the last sync, each stream keeping a
  // gap-free prefix (docs/PERSISTENCE_STORAGE.md, "Durability").
  bool fsync = true;
  // `create-if-missing`.
  bool create_if_missing = true;
  // `mode`: read-write, read-only or secondary (RocksDbMode).
  RocksDbMode mode = RocksDbMode::kReadWrite;
  // `secondary-dir`: for mode secondary only, and required there: a
  // directory of this instance's own, outside the store's directory and
  // not shared with another secondary instance; created if missing.
  std::string secondary_path;
  // `catch-up-interval`: for mode secondary, how often the instance catches
  // up with the primary by itself; zero (the default) means only when
  // RocksDbStore::CatchUpWithPrimary is called. A failed periodic catch-up
  // goes to `log` as a warning, and the next one tries again.
  std::chrono::milliseconds catch_up_interval{0};
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
  // Not from config: RocksDB's warnings and errors, the messages it would
  // otherwise write to a LOG file in the store directory (which it never
  // does here, so that a full disk cannot break the logging itself). Empty
  // means stderr, each line as `[rocksdb WARN] PATH: MESSAGE`. It must stay
  // callable until the last journal and snapshot store on the database is
  // gone. The Persistence extension sends them to the actor system's log
  // (source `persistence.rocksdb`).
  RocksDbLogSink log;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_OPTIONS_H_
