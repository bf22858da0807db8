// Damaged write-ahead logs and store directories. A record cut short at the
// end of the newest log is what a crash during a write leaves: opening
// drops it and goes on. Any other damage fails the open with DataLoss
// naming the log file and offset, and leaves every file as it was; the
// store is never replaced by a new one. The same holds for the reopen
// after a failed write.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/store_salvage.h"
#include "persistence/rocksdb/internal/wal_check.h"
#include "persistence/rocksdb/internal/wal_file.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/store_damage.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"

namespace cairn::persistence {
namespace {

using testing::DirectoryFingerprint;
using testing::FlipByte;
using ::testing::HasSubstr;
using testing::ReplayMessages;
using testing::ReplayOutcome;
using testing::Single;
using testing::TempDir;
using testing::Texts;
using testing::WalFiles;
using testing::WriteMessages;
using testing::WriteOutcome;

constexpr int64_t kMax = kMaxSequenceNr;

// The log's records, scanned before damaging it: where each one lies.
std::vector<rocksdb_internal::WalRecord> RecordsOf(const std::string& log) {
  std::vector<rocksdb_internal::WalRecord> records;
  absl::StatusOr<rocksdb_internal::WalFileScan> scan =
      rocksdb_internal::ScanWalFile(
          rocksdb::Env::Default(), log, 0,
          [&](const rocksdb_internal::WalRecord& record) {
            rocksdb_internal::WalRecord copy = record;
            copy.batch = {};
            records.push_back(copy);
          });
  EXPECT_OK(scan);
  if (scan.ok()) {
    EXPECT_TRUE(scan->damage.empty());
  }
  return records;
}

class WalCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    options_.path = dir_->path() + "/store";
  }

  absl::Status Open() {
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
    if (!store.ok()) return store.status();
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(serialization_);
    if (!journal.ok()) return journal.status();
    journal_ = *std::move(journal);
    return absl::OkStatus();
  }

  void Close() { journal_.reset(); }

  // One commit, so one WAL record: events from..to of `pid`.
  void Write(const std::string& pid, int64_t from, int64_t to) {
    std::vector<AtomicWrite> writes;
    for (int64_t n = from; n <= to; ++n) {
      writes.push_back(Single(
          pid, n, serialization::Payload::Of(absl::StrCat(pid, "-", n))));
    }
    WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
    ASSERT_OK(outcome.batch);
  }

  std::vector<std::string> Replay(const std::string& pid) {
    ReplayOutcome replay = ReplayMessages(*journal_, pid, 1, kMax, kMax);
    EXPECT_OK(replay.status);
    return Texts(replay.events);
  }

  static std::vector<std::string> Expected(const std::string& pid, int64_t from,
                                           int64_t to) {
    std::vector<std::string> texts;
    for (int64_t n = from; n <= to; ++n) {
      texts.push_back(absl::StrCat(pid, "-", n));
    }
    return texts;
  }

  // A closed store whose one log holds the layout version, then "p-1"
  // events 1..300, one per record (records_[n] holds event n), then "last"
  // 1..3 in one record.
  void WriteStoreWithOneLog() {
    ASSERT_OK(Open());
    for (int64_t n = 1; n <= 300; ++n) Write("p-1", n, n);
    Write("last", 1, 3);
    Close();
    std::vector<std::string> logs = WalFiles(options_.path);
    ASSERT_EQ(logs.size(), 1u);
    log_ = logs[0];
    records_ = RecordsOf(log_);
    // The first record is the layout version, written on creation.
    ASSERT_EQ(records_.size(), 302u);
  }

  // The record holding `offset`.
  const rocksdb_internal::WalRecord& RecordAt(uint64_t offset) const {
    for (const rocksdb_internal::WalRecord& record : records_) {
      if (offset >= record.offset && offset < record.end) return record;
    }
    ADD_FAILURE() << "no record at " << offset;
    return records_.front();
  }

  // Expects every open to fail with DataLoss naming `what`, and to leave
  // every file as it was.
  void ExpectOpensFailChangingNothing(const std::string& what) {
    const std::map<std::string, std::string> before =
        DirectoryFingerprint(options_.path);
    absl::Status opened = Open();
    EXPECT_EQ(opened.code(), absl::StatusCode::kDataLoss) << opened;
    EXPECT_THAT(std::string(opened.message()), HasSubstr(what));
    EXPECT_EQ(DirectoryFingerprint(options_.path), before);
    // Again: the first failure must not have turned the damage into
    // something an open accepts.
    opened = Open();
    EXPECT_EQ(opened.code(), absl::StatusCode::kDataLoss) << opened;
    absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> read_only =
        rocksdb_internal::Db::OpenReadOnly(options_.path, nullptr);
    EXPECT_EQ(read_only.status().code(), absl::StatusCode::kDataLoss)
        << read_only.status();
    EXPECT_THAT(std::string(read_only.status().message()), HasSubstr(what));
    EXPECT_EQ(DirectoryFingerprint(options_.path), before);
    // The plugins' read-only and secondary modes check as well.
    for (RocksDbMode mode : {RocksDbMode::kReadOnly, RocksDbMode::kSecondary}) {
      RocksDbOptions reading = options_;
      reading.mode = mode;
      reading.secondary_path = dir_->path() + "/secondary";
      absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(reading);
      EXPECT_EQ(store.status().code(), absl::StatusCode::kDataLoss)
          << store.status();
      EXPECT_THAT(std::string(store.status().message()), HasSubstr(what));
      EXPECT_EQ(DirectoryFingerprint(options_.path), before);
    }
  }

  std::optional<TempDir> dir_;
  RocksDbOptions options_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
  std::unique_ptr<Journal> journal_;
  std::string log_;
  std::vector<rocksdb_internal::WalRecord> records_;
};

// (a) The normal crash: the last record cut short.
TEST_F(WalCorruptionTest, ALastRecordCutShortIsDroppedAndTheStoreOpens) {
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  std::filesystem::resize_file(log_, records_.back().end - 5);
  ASSERT_OK(Open());
  EXPECT_EQ(Replay("p-1"), Expected("p-1", 1, 300));
  EXPECT_TRUE(Replay("last").empty());
  // The store goes on: the next write takes the dropped record's place.
  Write("last", 1, 1);
  Close();
  ASSERT_OK(Open());
  EXPECT_EQ(Replay("last"), Expected("last", 1, 1));
}

TEST_F(WalCorruptionTest, ALastRecordWithADamagedChecksumFailsTheOpen) {
  // Not a write cut short: every byte of it is there. RocksDB refuses it
  // in every mode that keeps the records after a bad one, and so does the
  // check, which cannot tell what it held.
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  FlipByte(log_, records_.back().end - 2);
  absl::Status opened = Open();
  EXPECT_EQ(opened.code(), absl::StatusCode::kDataLoss) << opened;
}

// (b) Flipped bytes in the middle: RocksDB's default recovery dropped
// every record after them and reported nothing.
TEST_F(WalCorruptionTest,
       FlippedBytesInTheMiddleFailTheOpenNamingFileAndOffset) {
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  const uint64_t middle = std::filesystem::file_size(log_) / 2;
  const rocksdb_internal::WalRecord& damaged = RecordAt(middle);
  FlipByte(log_, middle);
  ASSERT_NO_FATAL_FAILURE(ExpectOpensFailChangingNothing(absl::StrCat(
      log_, " at offset ", damaged.offset, " (checksum mismatch")));
}

TEST_F(WalCorruptionTest, ZeroedBytesInTheMiddleFailTheOpen) {
  // RocksDB skips a zeroed header silently, with the rest of its block.
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  const rocksdb_internal::WalRecord& damaged = RecordAt(records_[100].offset);
  testing::ZeroBytes(log_, damaged.offset, 64);
  ASSERT_NO_FATAL_FAILURE(ExpectOpensFailChangingNothing(
      absl::StrCat(log_, " at offset ", damaged.offset, " (zeroed bytes")));
}

// (c) The newest log cut short in the middle of its records cannot be
// told from a crash during a write: what the newest log holds past its
// last complete record was never acknowledged if the store was killed.
// The records before the cut are kept.
TEST_F(WalCorruptionTest, TheNewestLogCutShortLooksLikeACrash) {
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  std::filesystem::resize_file(log_, records_[150].offset + 10);
  ASSERT_OK(Open());
  EXPECT_EQ(Replay("p-1"), Expected("p-1", 1, 149));
}

// (c) An older log cut short: the next log's records start at a database
// sequence number past the last one the cut log holds.
TEST_F(WalCorruptionTest, AnOlderLogCutShortFailsTheOpen) {
  ASSERT_OK(Open());
  Close();
  {
    testing::RawStore raw(options_.path);
    ASSERT_OK(raw.status());
    // A record in the default column family keeps the first log alive
    // after the events are flushed, which starts a new log.
    raw.Put(0, "pin", "pin");
    for (int n = 0; n < 200; ++n) raw.Put(1, absl::StrCat("a", n), "value");
    raw.Flush(1);
    for (int n = 0; n < 200; ++n) raw.Put(1, absl::StrCat("b", n), "value");
  }
  std::vector<std::string> logs = WalFiles(options_.path);
  ASSERT_EQ(logs.size(), 2u);
  std::vector<rocksdb_internal::WalRecord> older = RecordsOf(logs[0]);
  ASSERT_GT(older.size(), 100u);
  std::filesystem::resize_file(logs[0], older[100].offset + 3);
  ASSERT_NO_FATAL_FAILURE(ExpectOpensFailChangingNothing(
      absl::StrCat("records are missing between write-ahead logs ", logs[0],
                   " and ", logs[1])));
}

TEST_F(WalCorruptionTest,
       AStoreWithoutItsCurrentFileIsNeitherOpenedNorReplaced) {
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  std::filesystem::remove(options_.path + "/CURRENT");
  const std::map<std::string, std::string> before =
      DirectoryFingerprint(options_.path);
  absl::Status opened = Open();
  EXPECT_EQ(opened.code(), absl::StatusCode::kDataLoss) << opened;
  EXPECT_THAT(std::string(opened.message()), HasSubstr("no CURRENT file"));
  EXPECT_THAT(std::string(opened.message()), HasSubstr("MANIFEST-"));
  EXPECT_EQ(DirectoryFingerprint(options_.path), before);
  absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> read_only =
      rocksdb_internal::Db::OpenReadOnly(options_.path, nullptr);
  EXPECT_EQ(read_only.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(DirectoryFingerprint(options_.path), before);
}

TEST_F(WalCorruptionTest, InspectingADamagedStoreSkipsTheDamagedRecords) {
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  FlipByte(log_, records_[10].offset + 20);
  const std::map<std::string, std::string> before =
      DirectoryFingerprint(options_.path);
  absl::StatusOr<std::shared_ptr<rocksdb_internal::Db>> db =
      rocksdb_internal::Db::OpenReadOnly(
          options_.path, nullptr,
          rocksdb_internal::Db::WalRecovery::kSkipDamaged);
  ASSERT_OK(db);
  db->reset();
  EXPECT_EQ(DirectoryFingerprint(options_.path), before);
  // Only for reading.
  EXPECT_EQ(rocksdb_internal::Db::Open(
                options_, rocksdb_internal::Db::WalRecovery::kSkipDamaged)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// Salvage (journal_tool salvage --confirm) keeps every readable record,
// the ones after the damage too, and names what is missing.
TEST_F(WalCorruptionTest, SalvageKeepsEveryReadableRecordAndNamesTheLostOnes) {
  ASSERT_NO_FATAL_FAILURE(WriteStoreWithOneLog());
  // Events 100 and 200, in two places.
  FlipByte(log_, (records_[100].offset + records_[100].end) / 2);
  testing::ZeroBytes(log_, records_[200].offset, 7);
  const std::string original = DirectoryFingerprint(options_.path)
                                   .at(std::filesystem::path(log_).filename());

  absl::StatusOr<rocksdb_internal::SalvageResult> salvaged =
      rocksdb_internal::SalvageStore(options_.path, nullptr);
  ASSERT_OK(salvaged);
  EXPECT_TRUE(salvaged->changed);
  EXPECT_EQ(salvaged->logs.problems.size(), 2u);
  ASSERT_EQ(salvaged->missing_events.size(), 2u);
  EXPECT_EQ(salvaged->missing_events[0].persistence_id, "p-1");
  EXPECT_EQ(salvaged->missing_events[0].from, 100);
  EXPECT_EQ(salvaged->missing_events[0].to, 100);
  EXPECT_EQ(salvaged->missing_events[1].from, 200);
  EXPECT_EQ(salvaged->missing_events[1].to, 200);
  // Each lost record held one entry.
  ASSERT_EQ(salvaged->lost_sequence_numbers.size(), 2u);
  EXPECT_EQ(salvaged->lost_sequence_numbers[0].first,
            salvaged->lost_sequence_numbers[0].second);
  // The damaged log is kept as it was.
  std::ifstream kept(salvaged->backup_dir + "/" +
                         std::filesystem::path(log_).filename().string(),
                     std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), original);

  ASSERT_OK(Open());
  std::vector<std::string> expected = Expected("p-1", 1, 300);
  expected.erase(expected.begin() + 199);
  expected.erase(expected.begin() + 99);
  EXPECT_EQ(Replay("p-1"), expected);
  EXPECT_EQ(Replay("last"), Expected("last", 1, 3));
  Close();
  // A second salvage finds nothing to do.
  salvaged = rocksdb_internal::SalvageStore(options_.path, nullptr);
  ASSERT_OK(salvaged);
  EXPECT_FALSE(salvaged->changed);
}

TEST_F(WalCorruptionTest, SalvageNamesEventsThatWereTheLastOfTheirStream) {
  // Nothing of "q" follows its damaged event, so only the damaged bytes
  // can name it.
  ASSERT_OK(Open());
  Write("q", 1, 1);
  for (int64_t n = 1; n <= 50; ++n) Write("p-1", n, n);
  Close();
  log_ = WalFiles(options_.path).at(0);
  records_ = RecordsOf(log_);
  ASSERT_EQ(records_.size(), 52u);
  FlipByte(log_, records_[1].end - 3);  // in the value of ("q", 1)

  absl::StatusOr<rocksdb_internal::SalvageResult> salvaged =
      rocksdb_internal::SalvageStore(options_.path, nullptr);
  ASSERT_OK(salvaged);
  EXPECT_TRUE(salvaged->missing_events.empty());
  ASSERT_EQ(salvaged->named_by_damage.size(), 1u);
  EXPECT_EQ(salvaged->named_by_damage[0].first, "q");
  EXPECT_EQ(salvaged->named_by_damage[0].second, 1);
  ASSERT_OK(Open());
  EXPECT_EQ(Replay("p-1"), Expected("p-1", 1, 50));
}

TEST_F(WalCorruptionTest, SalvageOfAnOlderLogCutShortLetsTheStoreOpen) {
  ASSERT_OK(Open());
  Close();
  {
    testing::RawStore raw(options_.path);
    ASSERT_OK(raw.status());
    raw.Put(0, "pin", "pin");
    for (int n = 0; n < 200; ++n) raw.Put(0, absl::StrCat("a", n), "value");
    raw.Flush(1);
    raw.Put(1, "force", "a new log");
    raw.Flush(1);
    for (int n = 0; n < 200; ++n) raw.Put(0, absl::StrCat("b", n), "value");
  }
  std::vector<std::string> logs = WalFiles(options_.path);
  ASSERT_GE(logs.size(), 2u);
  std::vector<rocksdb_internal::WalRecord> older = RecordsOf(logs[0]);
  ASSERT_GT(older.size(), 100u);
  std::filesystem::resize_file(logs[0], older[100].offset + 3);
  ASSERT_FALSE(Open().ok());

  absl::StatusOr<rocksdb_internal::SalvageResult> salvaged =
      rocksdb_internal::SalvageStore(options_.path, nullptr);
  ASSERT_OK(salvaged);
  EXPECT_TRUE(salvaged->changed);
  ASSERT_FALSE(salvaged->lost_sequence_numbers.empty());
  ASSERT_OK(Open());
}

// The reopen after a failed write (Db::Recover) checks the logs the same
// way: a record the failed write left cut short at the end of the log is
// dropped, and the store goes on.
TEST_F(WalCorruptionTest, ARecordCutShortByAFailedWriteDoesNotStopTheStore) {
  auto file_system = std::make_shared<testing::TearingFileSystem>();
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(file_system);
  options_.env = env.get();
  ASSERT_OK(Open());
  Write("a", 1, 2);

  // The write reaches the log half written, and until the failure ends
  // nothing can be written, so RocksDB's own resume (which flushes the
  // memtables) fails too and the store closes and reopens.
  file_system->TearNextWalAppend();
  file_system->SetFailWrites(true);
  WriteOutcome failed = WriteMessages(
      *journal_,
      {Single("a", 3, serialization::Payload::Of(std::string("a-3-lost")))});
  EXPECT_FALSE(failed.batch.ok());
  failed = WriteMessages(
      *journal_,
      {Single("a", 3,
              serialization::Payload::Of(std::string("a-3-lost-again")))});
  EXPECT_FALSE(failed.batch.ok());
  file_system->SetFailWrites(false);
  // The failed write left its record cut short at the end of the log.
  absl::StatusOr<rocksdb_internal::WalReport> logs =
      rocksdb_internal::CheckWalFiles(env.get(), options_.path);
  ASSERT_OK(logs);
  EXPECT_TRUE(logs->cut_short_end.has_value());
  EXPECT_TRUE(logs->problems.empty());

  Write("a", 3, 4);
  EXPECT_EQ(Replay("a"), Expected("a", 1, 4));
  Close();
  ASSERT_OK(Open());
  EXPECT_EQ(Replay("a"), Expected("a", 1, 4));
  Close();
}

}  // namespace
}  // namespace cairn::persistence
