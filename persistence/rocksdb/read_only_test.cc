// Opening a store read-only or as a secondary instance (RocksDbMode):
// reading changes no byte of the store's directory, every write is refused
// with FailedPrecondition naming the store, and a secondary sees what its
// primary wrote once it catches up.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/store_damage.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using testing::DirectoryFingerprint;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ReplayMessages;
using testing::Single;
using testing::TempDir;
using testing::Texts;
using testing::WriteMessages;

constexpr int64_t kMax = INT64_MAX;

// Every file of a directory with its size and a hash of its content, so
// that a difference reads as names and sizes rather than as file contents.
struct FileFacts {
  uint64_t size;
  uint64_t hash;  // FNV-1a
  bool operator==(const FileFacts&) const = default;
};
void PrintTo(const FileFacts& facts, std::ostream* out) {
  *out << facts.size << " bytes, hash " << std::hex << facts.hash << std::dec;
}

std::map<std::string, FileFacts> Snapshot(const std::string& dir) {
  std::map<std::string, FileFacts> facts;
  for (const auto& [name, content] : DirectoryFingerprint(dir)) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : content) {
      hash = (hash ^ c) * 1099511628211ull;
    }
    facts[name] = FileFacts{content.size(), hash};
  }
  return facts;
}

serialization::Payload Text(std::string text) {
  return serialization::Payload::Of(std::move(text));
}

class ReadOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    path_ = dir_->path() + "/store";
    secondary_path_ = dir_->path() + "/secondary";
  }

  RocksDbOptions Options(RocksDbMode mode) const {
    RocksDbOptions options;
    options.path = path_;
    options.mode = mode;
    if (mode == RocksDbMode::kSecondary) {
      options.secondary_path = secondary_path_;
    }
    return options;
  }

  // A closed store: "p" 1..3 with 1 deleted, "q" 1..2, a snapshot of "p"
  // at 2. Its last writes are in the write-ahead log only, which a
  // read-write open would flush to a table file.
  void WriteClosedStore() {
    absl::StatusOr<RocksDbStore> store =
        RocksDbStore::Open(Options(RocksDbMode::kReadWrite));
    ASSERT_OK(store);
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(serialization_);
    ASSERT_OK(journal);
    for (int64_t n = 1; n <= 3; ++n) {
      testing::WriteOutcome written = WriteMessages(
          **journal, {Single("p", n, Text(absl::StrCat("p-", n)))});
      ASSERT_OK(written.batch);
    }
    testing::WriteOutcome written = WriteMessages(
        **journal, {Single("q", 1, Text("q-1")), Single("q", 2, Text("q-2"))});
    ASSERT_OK(written.batch);
    ASSERT_OK(testing::DeleteMessagesTo(**journal, "p", 1));
    std::unique_ptr<SnapshotStore> snapshots =
        store->NewSnapshotStore(serialization_);
    ASSERT_OK(testing::SaveSnapshot(*snapshots, SnapshotMetadata{"p", 2, 7},
                                    Text("state-2")));
  }

  // Reads everything WriteClosedStore wrote, and tries every kind of write,
  // each refused naming the store and the mode.
  void ReadAndTryToWrite(const RocksDbStore& store, const std::string& mode) {
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store.NewJournal(serialization_);
    ASSERT_OK(journal);
    testing::ReplayOutcome p = ReplayMessages(**journal, "p", 1, kMax, kMax);
    ASSERT_OK(p.status);
    EXPECT_THAT(Texts(p.events), ElementsAre("p-2", "p-3"));
    testing::ReplayOutcome q = ReplayMessages(**journal, "q", 1, kMax, kMax);
    EXPECT_THAT(Texts(q.events), ElementsAre("q-1", "q-2"));
    absl::StatusOr<int64_t> highest =
        testing::ReadHighestSequenceNr(**journal, "p");
    ASSERT_OK(highest);
    EXPECT_EQ(*highest, 3);
    std::unique_ptr<SnapshotStore> snapshots =
        store.NewSnapshotStore(serialization_);
    absl::StatusOr<LoadSnapshotResult> loaded = testing::LoadSnapshot(
        *snapshots, "p", SnapshotSelectionCriteria::Latest(), kMax);
    ASSERT_OK(loaded);
    ASSERT_TRUE(loaded->snapshot.has_value());
    EXPECT_EQ(loaded->snapshot->metadata.sequence_nr, 2);

    auto refused = [&](const absl::Status& status) {
      EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
      EXPECT_THAT(std::string(status.message()), HasSubstr(path_));
      EXPECT_THAT(std::string(status.message()),
                  HasSubstr(absl::StrCat("mode ", mode)));
    };
    testing::WriteOutcome written =
        WriteMessages(**journal, {Single("p", 4, Text("p-4"))});
    refused(written.batch);
    refused(testing::DeleteMessagesTo(**journal, "q", 2));
    refused(testing::SaveSnapshot(*snapshots, SnapshotMetadata{"q", 2, 9},
                                  Text("state")));
    refused(testing::DeleteSnapshots(*snapshots, "p",
                                     SnapshotSelectionCriteria::Latest()));
    // Nothing of the refused writes is there.
    testing::ReplayOutcome again =
        ReplayMessages(**journal, "p", 1, kMax, kMax);
    EXPECT_THAT(Texts(again.events), ElementsAre("p-2", "p-3"));
  }

  std::optional<TempDir> dir_;
  std::string path_;
  std::string secondary_path_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
};

TEST_F(ReadOnlyTest, AReadOnlyOpenAndItsReadsChangeNoByteOfTheStore) {
  ASSERT_NO_FATAL_FAILURE(WriteClosedStore());
  const std::map<std::string, FileFacts> before = Snapshot(path_);
  ASSERT_FALSE(before.empty());
  {
    absl::StatusOr<RocksDbStore> store =
        RocksDbStore::Open(Options(RocksDbMode::kReadOnly));
    ASSERT_OK(store);
    ASSERT_NO_FATAL_FAILURE(ReadAndTryToWrite(*store, "read-only"));
    absl::Status caught_up = store->CatchUpWithPrimary();
    EXPECT_EQ(caught_up.code(), absl::StatusCode::kFailedPrecondition)
        << caught_up;
  }
  EXPECT_EQ(Snapshot(path_), before);
}

TEST_F(ReadOnlyTest, ASecondaryOpenCatchUpAndReadsChangeNoByteOfTheStore) {
  ASSERT_NO_FATAL_FAILURE(WriteClosedStore());
  const std::map<std::string, FileFacts> before = Snapshot(path_);
  {
    absl::StatusOr<RocksDbStore> store =
        RocksDbStore::Open(Options(RocksDbMode::kSecondary));
    ASSERT_OK(store);
    ASSERT_OK(store->CatchUpWithPrimary());
    ASSERT_NO_FATAL_FAILURE(ReadAndTryToWrite(*store, "secondary"));
    ASSERT_OK(store->CatchUpWithPrimary());
  }
  EXPECT_EQ(Snapshot(path_), before);
}

TEST_F(ReadOnlyTest, AReadOnlyOpenTakesNoLockAndSeesTheStoreAsItWasOpened) {
  absl::StatusOr<RocksDbStore> primary =
      RocksDbStore::Open(Options(RocksDbMode::kReadWrite));
  ASSERT_OK(primary);
  absl::StatusOr<std::unique_ptr<Journal>> writer =
      primary->NewJournal(serialization_);
  ASSERT_OK(writer);
  ASSERT_OK(WriteMessages(**writer, {Single("p", 1, Text("p-1"))}).batch);

  // While the primary holds the store open (and its lock).
  absl::StatusOr<RocksDbStore> reader =
      RocksDbStore::Open(Options(RocksDbMode::kReadOnly));
  ASSERT_OK(reader);
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      reader->NewJournal(serialization_);
  ASSERT_OK(journal);
  ASSERT_OK(WriteMessages(**writer, {Single("p", 2, Text("p-2"))}).batch);
  EXPECT_THAT(Texts(ReplayMessages(**journal, "p", 1, kMax, kMax).events),
              ElementsAre("p-1"));
}

TEST_F(ReadOnlyTest, ASecondarySeesThePrimarysWritesAfterCatchingUp) {
  absl::StatusOr<RocksDbStore> primary =
      RocksDbStore::Open(Options(RocksDbMode::kReadWrite));
  ASSERT_OK(primary);
  absl::StatusOr<std::unique_ptr<Journal>> writer =
      primary->NewJournal(serialization_);
  ASSERT_OK(writer);
  ASSERT_OK(WriteMessages(**writer, {Single("p", 1, Text("p-1")),
                                     Single("p", 2, Text("p-2"))})
                .batch);

  absl::StatusOr<RocksDbStore> secondary =
      RocksDbStore::Open(Options(RocksDbMode::kSecondary));
  ASSERT_OK(secondary);
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      secondary->NewJournal(serialization_);
  ASSERT_OK(journal);
  std::unique_ptr<SnapshotStore> snapshots =
      secondary->NewSnapshotStore(serialization_);
  EXPECT_THAT(Texts(ReplayMessages(**journal, "p", 1, kMax, kMax).events),
              ElementsAre("p-1", "p-2"));

  ASSERT_OK(WriteMessages(**writer, {Single("p", 3, Text("p-3")),
                                     Single("q", 1, Text("q-1"))})
                .batch);
  ASSERT_OK(testing::DeleteMessagesTo(**writer, "p", 1));
  std::unique_ptr<SnapshotStore> primary_snapshots =
      primary->NewSnapshotStore(serialization_);
  ASSERT_OK(testing::SaveSnapshot(*primary_snapshots,
                                  SnapshotMetadata{"p", 3, 5}, Text("s-3")));
  // Not before it catches up.
  EXPECT_THAT(Texts(ReplayMessages(**journal, "p", 1, kMax, kMax).events),
              ElementsAre("p-1", "p-2"));
  EXPECT_EQ(testing::ReadHighestSequenceNr(**journal, "q").value_or(-1), 0);

  ASSERT_OK(secondary->CatchUpWithPrimary());
  EXPECT_THAT(Texts(ReplayMessages(**journal, "p", 1, kMax, kMax).events),
              ElementsAre("p-2", "p-3"));
  EXPECT_THAT(Texts(ReplayMessages(**journal, "q", 1, kMax, kMax).events),
              ElementsAre("q-1"));
  absl::StatusOr<LoadSnapshotResult> loaded = testing::LoadSnapshot(
      *snapshots, "p", SnapshotSelectionCriteria::Latest(), kMax);
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->snapshot->metadata.sequence_nr, 3);
}

TEST_F(ReadOnlyTest, ASecondaryWithAnIntervalCatchesUpByItself) {
  absl::StatusOr<RocksDbStore> primary =
      RocksDbStore::Open(Options(RocksDbMode::kReadWrite));
  ASSERT_OK(primary);
  absl::StatusOr<std::unique_ptr<Journal>> writer =
      primary->NewJournal(serialization_);
  ASSERT_OK(writer);
  RocksDbOptions options = Options(RocksDbMode::kSecondary);
  options.catch_up_interval = std::chrono::milliseconds(10);
  absl::StatusOr<RocksDbStore> secondary = RocksDbStore::Open(options);
  ASSERT_OK(secondary);
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      secondary->NewJournal(serialization_);
  ASSERT_OK(journal);

  ASSERT_OK(WriteMessages(**writer, {Single("p", 1, Text("p-1"))}).batch);
  // No call to CatchUpWithPrimary: the instance's own catch-ups bring it.
  const absl::Time deadline = absl::Now() + testing::kCallDeadline;
  absl::StatusOr<int64_t> highest = 0;
  while (absl::Now() < deadline) {
    highest = testing::ReadHighestSequenceNr(**journal, "p");
    ASSERT_OK(highest);
    if (*highest == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(*highest, 1);
}

TEST_F(ReadOnlyTest, ReadingAStoreThatIsNotThereCreatesNothing) {
  for (RocksDbMode mode : {RocksDbMode::kReadOnly, RocksDbMode::kSecondary}) {
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(Options(mode));
    EXPECT_EQ(store.status().code(), absl::StatusCode::kNotFound)
        << store.status();
    EXPECT_FALSE(std::filesystem::exists(path_));
  }
}

TEST_F(ReadOnlyTest, ASecondaryNeedsADirectoryOfItsOwnOutsideTheStore) {
  ASSERT_NO_FATAL_FAILURE(WriteClosedStore());
  const std::map<std::string, FileFacts> before = Snapshot(path_);
  RocksDbOptions options = Options(RocksDbMode::kSecondary);
  for (const std::string& own :
       {std::string(), path_, path_ + "/secondary", path_ + "/./x/.."}) {
    options.secondary_path = own;
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
    EXPECT_EQ(store.status().code(), absl::StatusCode::kInvalidArgument)
        << own << ": " << store.status();
  }
  EXPECT_EQ(Snapshot(path_), before);
}

}  // namespace
}  // namespace cairn::persistence
