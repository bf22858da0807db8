// The RocksDB plugin's reading modes chosen from config
// (akka.persistence.journal.rocksdb.mode, secondary-dir, catch-up-interval):
// a read-only journal reads what a writer stored and refuses writes; a
// secondary follows a writer by itself; a bad mode is a reason, not a
// crash.

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::persistence {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

AtomicWrite Text(const std::string& id, int64_t n) {
  return testing::Single(id, n,
                         serialization::Payload::Of(absl::StrCat(id, "-", n)));
}

// A writer of the store at `path`, as another process would be.
struct Writer {
  explicit Writer(const std::string& path) {
    RocksDbOptions options;
    options.path = path;
    options.fsync = false;
    absl::StatusOr<RocksDbStore> opened = RocksDbStore::Open(options);
    EXPECT_OK(opened);
    store.emplace(*std::move(opened));
    absl::StatusOr<std::unique_ptr<Journal>> made = store->NewJournal(
        std::make_shared<serialization::SerializationRegistry>());
    EXPECT_OK(made);
    journal = *std::move(made);
  }
  void Write(const std::string& id, int64_t n) {
    testing::WriteOutcome written =
        testing::WriteMessages(*journal, {Text(id, n)});
    ASSERT_OK(written.batch);
    ASSERT_OK(written.per_write.at(0));
  }
  std::optional<RocksDbStore> store;
  std::unique_ptr<Journal> journal;
};

TEST(RocksDbModeConfigTest, AReadOnlyJournalReadsAndRefusesWrites) {
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/store";
  {
    Writer writer(path);
    writer.Write("p", 1);
    writer.Write("p", 2);
  }
  actor::testkit::TestKit kit(
      absl::StrCat("akka.persistence.journal.rocksdb { dir = \"", path,
                   "\", mode = read-only }"));
  absl::StatusOr<Journal*> journal = Persistence::Get(kit.Sys()).JournalFor("");
  ASSERT_OK(journal);
  absl::StatusOr<int64_t> highest =
      testing::ReadHighestSequenceNr(**journal, "p");
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 2);
  testing::WriteOutcome refused =
      testing::WriteMessages(**journal, {Text("p", 3)});
  EXPECT_EQ(refused.batch.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.batch.message()), HasSubstr("read-only"));
}

TEST(RocksDbModeConfigTest, ASecondaryJournalFollowsTheWriterByItself) {
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/store";
  Writer writer(path);
  writer.Write("p", 1);
  actor::testkit::TestKit kit(
      absl::StrCat("akka.persistence.journal.rocksdb { dir = \"", path,
                   "\", mode = secondary, secondary-dir = \"", dir->path(),
                   "/secondary\", catch-up-interval = 10ms }"));
  absl::StatusOr<Journal*> journal = Persistence::Get(kit.Sys()).JournalFor("");
  ASSERT_OK(journal);
  EXPECT_EQ(*testing::ReadHighestSequenceNr(**journal, "p"), 1);
  writer.Write("p", 2);
  kit.AwaitCondition(
      [&] {
        absl::StatusOr<int64_t> h =
            testing::ReadHighestSequenceNr(**journal, "p");
        return h.ok() && *h == 2;
      },
      absl::Seconds(30), "the secondary to see the writer's second event");
}

TEST(RocksDbModeConfigTest, AnUnknownModeIsAReason) {
  actor::testkit::TestKit kit(
      "akka.persistence.journal.rocksdb.mode = read-mostly");
  absl::StatusOr<Journal*> journal = Persistence::Get(kit.Sys()).JournalFor("");
  ASSERT_FALSE(journal.ok());
  EXPECT_EQ(journal.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      std::string(journal.status().message()),
      HasSubstr("akka.persistence.journal.rocksdb.mode: 'read-mostly'"));
}

}  // namespace
}  // namespace cairn::persistence
