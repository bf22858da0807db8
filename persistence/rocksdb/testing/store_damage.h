#ifndef CAIRN_PERSISTENCE_ROCKSDB_TESTING_STORE_DAMAGE_H_
#define CAIRN_PERSISTENCE_ROCKSDB_TESTING_STORE_DAMAGE_H_

// Tools for tests that damage a RocksDB store on disk the way a disk, a
// crash or a person can: flipped or zeroed bytes, files cut short, writes
// torn in the middle; and a fingerprint of a directory to check that a
// failed open changed nothing.
//
// Thread safety: the functions share no state; TearingFileSystem's methods
// may be called from any thread.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/file_system.h"

namespace cairn::persistence::testing {

// Every file under `dir` (paths relative to it) with its contents.
std::map<std::string, std::string> DirectoryFingerprint(const std::string& dir);

// The store's write-ahead log files ("NNNNNN.log"), full paths, oldest
// first.
std::vector<std::string> WalFiles(const std::string& dir);

// Inverts the bits of the byte at `offset` of the file `path`.
void FlipByte(const std::string& path, uint64_t offset);
// Overwrites `count` bytes from `offset` with zeros.
void ZeroBytes(const std::string& path, uint64_t offset, uint64_t count);

// A closed cairn store opened through RocksDB directly, with its column
// families by index (0 default, 1 events, 2 snapshots, 3 metadata), to
// write what the plugins never would. Writes are not synced; closing
// leaves them in the write-ahead log.
class RawStore {
 public:
  explicit RawStore(const std::string& path);
  ~RawStore();
  RawStore(const RawStore&) = delete;
  RawStore& operator=(const RawStore&) = delete;

  const rocksdb::Status& status() const { return status_; }
  void Put(int family, const std::string& key, const std::string& value);
  // Moves the family's records into a table file; RocksDB starts a new
  // write-ahead log.
  void Flush(int family);

 private:
  rocksdb::Status status_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

// A file system that, on command, writes the first half of the next append
// to a write-ahead log and then fails it (a write torn by a failing disk),
// and fails every write and file creation while told to.
class TearingFileSystem : public rocksdb::FileSystemWrapper {
 public:
  TearingFileSystem();
  ~TearingFileSystem() override;

  const char* Name() const override { return "TearingFileSystem"; }

  void TearNextWalAppend();
  void SetFailWrites(bool fail);

  rocksdb::IOStatus NewWritableFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* file,
      rocksdb::IODebugContext* debug) override;
  rocksdb::IOStatus ReopenWritableFile(
      const std::string& name, const rocksdb::FileOptions& options,
      std::unique_ptr<rocksdb::FSWritableFile>* file,
      rocksdb::IODebugContext* debug) override;

  struct Controls;

 private:
  rocksdb::IOStatus Wrap(const std::string& name, rocksdb::IOStatus opened,
                         std::unique_ptr<rocksdb::FSWritableFile>* file);

  const std::shared_ptr<Controls> controls_;
};

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_ROCKSDB_TESTING_STORE_DAMAGE_H_
