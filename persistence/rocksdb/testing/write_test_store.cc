// Writes the store journal_tool_test.sh inspects, through the RocksDB
// plugins, or damages one written before.
//
//   write_test_store DIR            writes the store at DIR (must be new)
//   write_test_store DIR --damage   overwrites records of that store:
//                                   event ("p-1", 3), snapshot ("p-1", 3) and
//                                   the metadata of "p-2"
//   write_test_store DIR --wal      writes a new store at DIR whose
//                                   write-ahead log holds "w-2" 1, "w-1"
//                                   1..100 and "w-2" 2, each written alone,
//                                   then flips the last byte of the log
//                                   record of ("w-1", 50), in its value
//
// The store: "p-1" events 1..5 (strings "a-1".."a-5"; 2 tagged), a snapshot
// of "p-1" at 3; "p-2" events 1..3 (Amount), 1 and 2 deleted; the id
// "odd\"id\n" with one string event holding bytes that are not UTF-8.

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/wal_file.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/store_damage.h"
#include "persistence/rocksdb/testing/store_families.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"

namespace cairn::persistence::testing {
namespace {

int Check(const absl::Status& status, const char* what) {
  if (status.ok()) return 0;
  std::cerr << "write_test_store: " << what << ": " << status << "\n";
  return 1;
}

int Write(const std::string& path) {
  RocksDbOptions options;
  options.path = path;
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
  if (!store.ok()) return Check(store.status(), "opening");
  auto serialization = NewTestSerialization();
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      store->NewJournal(serialization);
  if (!journal.ok()) return Check(journal.status(), "journal");
  std::unique_ptr<SnapshotStore> snapshots =
      store->NewSnapshotStore(serialization);

  std::vector<AtomicWrite> writes;
  for (int n = 1; n <= 5; ++n) {
    writes.push_back(
        Single("p-1", n, serialization::Payload::Of("a-" + std::to_string(n))));
  }
  writes[1].events[0].tags = {"tag-a", "tag-b"};
  for (int n = 1; n <= 3; ++n) {
    writes.push_back(Single("p-2", n, serialization::Payload::Of(Amount{n})));
  }
  writes.push_back(
      Single("odd\"id\n", 1,
             serialization::Payload::Of(std::string("caf\xc3\xa9 \xff\x01"))));
  WriteOutcome outcome = WriteMessages(**journal, std::move(writes));
  if (int failed = Check(outcome.batch, "writing")) return failed;
  for (const absl::Status& status : outcome.per_write) {
    if (int failed = Check(status, "writing")) return failed;
  }
  if (int failed = Check(DeleteMessagesTo(**journal, "p-2", 2), "deleting")) {
    return failed;
  }
  return Check(SaveSnapshot(*snapshots, {"p-1", 3, 3000},
                            serialization::Payload::Of(std::string("state-3"))),
               "saving a snapshot");
}

int Damage(const std::string& path) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families = StoreColumnFamilies();
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status =
      rocksdb::DB::Open(rocksdb::DBOptions(), path, families, &handles, &raw);
  if (!status.ok()) {
    std::cerr << "write_test_store: " << status.ToString() << "\n";
    return 1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions sync;
  sync.sync = true;
  std::string snapshot;
  status = db->Get(rocksdb::ReadOptions(), handles[2],
                   rocksdb_internal::RecordKey("p-1", 3), &snapshot);
  if (status.ok()) {
    status = db->Put(sync, handles[1], rocksdb_internal::RecordKey("p-1", 3),
                     "junk");
  }
  if (status.ok()) {
    status = db->Put(sync, handles[2], rocksdb_internal::RecordKey("p-1", 3),
                     snapshot.substr(0, snapshot.size() / 2));
  }
  if (status.ok()) {
    status =
        db->Put(sync, handles[3], rocksdb_internal::StreamPrefix("p-2"), "?");
  }
  for (rocksdb::ColumnFamilyHandle* handle : handles) {
    db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  if (status.ok()) status = db->Close();
  if (!status.ok()) {
    std::cerr << "write_test_store: " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}

int WriteWithDamagedWal(const std::string& path) {
  {
    RocksDbOptions options;
    options.path = path;
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
    if (!store.ok()) return Check(store.status(), "opening");
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(NewTestSerialization());
    if (!journal.ok()) return Check(journal.status(), "journal");
    auto write = [&](const std::string& id, int n) {
      WriteOutcome outcome = WriteMessages(
          **journal,
          {Single(id, n,
                  serialization::Payload::Of(id + "-" + std::to_string(n)))});
      return Check(outcome.batch, "writing");
    };
    if (int failed = write("w-2", 1)) return failed;
    for (int n = 1; n <= 100; ++n) {
      if (int failed = write("w-1", n)) return failed;
    }
    if (int failed = write("w-2", 2)) return failed;
  }
  const std::vector<std::string> logs = WalFiles(path);
  if (logs.size() != 1) {
    std::cerr << "write_test_store: expected one log, found " << logs.size()
              << "\n";
    return 1;
  }
  const std::string key = rocksdb_internal::RecordKey("w-1", 50);
  // The record's last byte is in the event's value (its checksum): the
  // damage leaves the key, which the damaged bytes still show, intact.
  std::optional<uint64_t> last;
  absl::StatusOr<rocksdb_internal::WalFileScan> scan =
      rocksdb_internal::ScanWalFile(
          rocksdb::Env::Default(), logs[0], 0,
          [&](const rocksdb_internal::WalRecord& record) {
            if (record.batch.find(key) != std::string_view::npos) {
              last = record.end - 1;
            }
          });
  if (!scan.ok()) return Check(scan.status(), "reading the log");
  if (!last.has_value()) {
    std::cerr << "write_test_store: no log record of w-1 50\n";
    return 1;
  }
  FlipByte(logs[0], *last);
  return 0;
}

}  // namespace
}  // namespace cairn::persistence::testing

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1) return cairn::persistence::testing::Write(args[0]);
  if (args.size() == 2 && args[1] == "--damage") {
    return cairn::persistence::testing::Damage(args[0]);
  }
  if (args.size() == 2 && args[1] == "--wal") {
    return cairn::persistence::testing::WriteWithDamagedWal(args[0]);
  }
  std::cerr << "usage: write_test_store DIR [--damage | --wal]\n";
  return 2;
}
