// Stores written before the id log existed have no `ids` column family. A
// read-only open lists their ids, and its live PersistenceIds fails once
// it has (it has no log to follow); a read-write open back-fills the log
// from the ids there, and the live query follows it from then on.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/metadata_codec.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"

namespace cairn::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
using IdsBatch = QueryStream<std::string>::Batch;

// The store's RocksDB database opened directly with every family it has.
class RawStore {
 public:
  explicit RawStore(const std::string& path) {
    std::vector<std::string> names;
    status_ =
        rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names);
    if (!status_.ok()) return;
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const std::string& name : names) {
      families.push_back({name, rocksdb::ColumnFamilyOptions()});
    }
    rocksdb::DB* raw = nullptr;
    status_ = rocksdb::DB::Open(rocksdb::DBOptions(), path, families, &handles_,
                                &raw);
    db_.reset(raw);
    names_ = std::move(names);
  }
  ~RawStore() {
    for (rocksdb::ColumnFamilyHandle* handle : handles_) {
      db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
    }
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  const rocksdb::Status& status() const { return status_; }
  rocksdb::DB& db() { return *db_; }
  // Null if the store has no such family.
  rocksdb::ColumnFamilyHandle* Family(const std::string& name) {
    auto it = std::find(names_.begin(), names_.end(), name);
    return it == names_.end() ? nullptr : handles_[it - names_.begin()];
  }

 private:
  rocksdb::Status status_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<std::string> names_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

struct Opened {
  std::unique_ptr<Journal> journal;
  std::unique_ptr<ReadJournal> queries;  // destroyed first
};

Opened OpenOn(const std::string& path, RocksDbMode mode) {
  RocksDbOptions options;
  options.path = path;
  options.fsync = false;
  options.mode = mode;
  Opened opened;
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
  EXPECT_OK(store);
  if (!store.ok()) return opened;
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      store->NewJournal(testing::NewTestSerialization());
  EXPECT_OK(journal);
  if (!journal.ok()) return opened;
  opened.journal = *std::move(journal);
  absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
      opened.journal->NewReadJournal();
  EXPECT_OK(queries);
  if (queries.ok()) opened.queries = *std::move(queries);
  return opened;
}

// Pulls `count` ids (in batches of at most `max`) from a live query.
std::vector<std::string> PullIds(QueryStream<std::string>& stream,
                                 std::size_t count, std::size_t max) {
  std::vector<std::string> ids;
  while (ids.size() < count) {
    absl::StatusOr<IdsBatch> batch = testing::PullOnce(stream, max);
    EXPECT_OK(batch);
    if (!batch.ok() || batch->elements.empty()) break;
    EXPECT_FALSE(batch->complete);
    ids.insert(ids.end(), batch->elements.begin(), batch->elements.end());
  }
  return ids;
}

class IdsUpgradeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    path_ = dir_->path() + "/store";
  }

  // A store as a build without the id log left it: ids "a", "b" (events
  // deleted), "r" (only a rejected write) and "ab", and no ids family.
  void MakeOldStore() {
    {
      Opened writer = OpenOn(path_, RocksDbMode::kReadWrite);
      ASSERT_NE(writer.journal, nullptr);
      Journal& journal = *writer.journal;
      for (const char* id : {"b", "ab", "a"}) {
        ASSERT_OK(testing::WriteMessages(
                      journal,
                      {testing::Single(
                          id, 1, serialization::Payload::Of(std::string("x")))})
                      .batch);
      }
      ASSERT_OK(testing::DeleteMessagesTo(journal, "b", 1));
      testing::WriteOutcome rejected = testing::WriteMessages(
          journal,
          {testing::Single(
              "r", 1, serialization::Payload::Of(testing::NotSerializable{}))});
      ASSERT_OK(rejected.batch);
      ASSERT_FALSE(rejected.per_write.at(0).ok());
    }
    RawStore raw(path_);
    ASSERT_OK(raw.status());
    ASSERT_NE(raw.Family("ids"), nullptr);
    ASSERT_OK(raw.db().DropColumnFamily(raw.Family("ids")));
  }

  std::optional<testing::TempDir> dir_;
  std::string path_;
};

TEST_F(IdsUpgradeTest, AReadOnlyOpenListsTheIdsThenSaysItCannotFollow) {
  ASSERT_NO_FATAL_FAILURE(MakeOldStore());
  Opened reader = OpenOn(path_, RocksDbMode::kReadOnly);
  ASSERT_NE(reader.queries, nullptr);
  auto current = reader.queries->CurrentPersistenceIds();
  absl::StatusOr<std::vector<std::string>> all = testing::PullAll(*current, 10);
  ASSERT_OK(all);
  EXPECT_THAT(*all, UnorderedElementsAre("a", "ab", "b", "r"));
  auto live = reader.queries->PersistenceIds();
  EXPECT_THAT(PullIds(*live, 4, 3), UnorderedElementsAre("a", "ab", "b", "r"));
  absl::StatusOr<IdsBatch> after = testing::PullOnce(*live, 10);
  EXPECT_EQ(after.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(after.status().message()),
              HasSubstr("no id log ('ids' column family)"));
  // Nothing on disk changed: the family is still missing.
  reader = Opened{};
  RawStore raw(path_);
  ASSERT_OK(raw.status());
  EXPECT_EQ(raw.Family("ids"), nullptr);
}

TEST_F(IdsUpgradeTest, AReadWriteOpenBackFillsTheLogAndFollowsNewIds) {
  ASSERT_NO_FATAL_FAILURE(MakeOldStore());
  {
    Opened writer = OpenOn(path_, RocksDbMode::kReadWrite);
    ASSERT_NE(writer.queries, nullptr);
    auto live = writer.queries->PersistenceIds();
    // Back-filled in key order (by length, then bytes).
    EXPECT_THAT(PullIds(*live, 4, 3), ElementsAre("a", "b", "r", "ab"));
    auto slot = std::make_shared<testing::Slot<absl::StatusOr<IdsBatch>>>();
    live->Pull(10, [slot](auto batch) { slot->Set(std::move(batch)); });
    ASSERT_OK(testing::WriteMessages(
                  *writer.journal,
                  {testing::Single(
                       "a", 2, serialization::Payload::Of(std::string("y"))),
                   testing::Single(
                       "c", 1, serialization::Payload::Of(std::string("z")))})
                  .batch);
    std::optional<absl::StatusOr<IdsBatch>> got = slot->Wait();
    ASSERT_TRUE(got.has_value());
    ASSERT_OK(*got);
    EXPECT_THAT((*got)->elements, ElementsAre("c"));
  }
  // A read-only open of the upgraded store follows its log, and the next
  // writer continues it.
  Opened reader = OpenOn(path_, RocksDbMode::kReadOnly);
  ASSERT_NE(reader.queries, nullptr);
  auto live = reader.queries->PersistenceIds();
  EXPECT_THAT(PullIds(*live, 5, 10), ElementsAre("a", "b", "r", "ab", "c"));
  reader = Opened{};
  Opened writer = OpenOn(path_, RocksDbMode::kReadWrite);
  ASSERT_NE(writer.queries, nullptr);
  ASSERT_OK(testing::WriteMessages(
                *writer.journal,
                {testing::Single("d", 1,
                                 serialization::Payload::Of(std::string("w")))})
                .batch);
  live = writer.queries->PersistenceIds();
  EXPECT_THAT(PullIds(*live, 6, 4), ElementsAre("a", "b", "r", "ab", "c", "d"));
}

// A crash during a back-fill leaves entries but no highest id offset: the
// next read-write open redoes it, and nothing the first one left stays.
TEST_F(IdsUpgradeTest, ABackFillCutShortIsRedone) {
  ASSERT_NO_FATAL_FAILURE(MakeOldStore());
  {
    RawStore raw(path_);
    ASSERT_OK(raw.status());
    rocksdb::ColumnFamilyHandle* ids = nullptr;
    ASSERT_OK(raw.db().CreateColumnFamily(rocksdb::ColumnFamilyOptions(), "ids",
                                          &ids));
    ASSERT_OK(raw.db().Put(rocksdb::WriteOptions(), ids,
                           rocksdb_internal::IdLogKey(1), "stale"));
    ASSERT_OK(raw.db().Put(rocksdb::WriteOptions(), ids,
                           rocksdb_internal::IdLogKey(9), "stale-too"));
    ASSERT_OK(raw.db().DestroyColumnFamilyHandle(ids));
  }
  Opened writer = OpenOn(path_, RocksDbMode::kReadWrite);
  ASSERT_NE(writer.queries, nullptr);
  auto live = writer.queries->PersistenceIds();
  EXPECT_THAT(PullIds(*live, 4, 10), ElementsAre("a", "b", "r", "ab"));
  auto slot = std::make_shared<testing::Slot<absl::StatusOr<IdsBatch>>>();
  live->Pull(10, [slot](auto batch) { slot->Set(std::move(batch)); });
  ASSERT_OK(testing::WriteMessages(
                *writer.journal,
                {testing::Single("e", 1,
                                 serialization::Payload::Of(std::string("v")))})
                .batch);
  std::optional<absl::StatusOr<IdsBatch>> got = slot->Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  EXPECT_THAT((*got)->elements, ElementsAre("e"));
}

// More ids than one back-fill batch holds.
TEST_F(IdsUpgradeTest, ABackFillOfManyIdsGivesEachOnce) {
  constexpr int kIds = 10'050;
  ASSERT_NO_FATAL_FAILURE(MakeOldStore());
  {
    RawStore raw(path_);
    ASSERT_OK(raw.status());
    rocksdb::WriteBatch batch;
    flatbuffers::DetachedBuffer metadata =
        rocksdb_internal::EncodeStreamMetadata(1);
    for (int n = 0; n < kIds; ++n) {
      ASSERT_OK(batch.Put(
          raw.Family("metadata"),
          rocksdb_internal::StreamPrefix(absl::StrCat("m", 10'000 + n)),
          rocksdb::Slice(reinterpret_cast<const char*>(metadata.data()),
                         metadata.size())));
    }
    ASSERT_OK(raw.db().Write(rocksdb::WriteOptions(), &batch));
  }
  Opened writer = OpenOn(path_, RocksDbMode::kReadWrite);
  ASSERT_NE(writer.queries, nullptr);
  auto live = writer.queries->PersistenceIds();
  std::vector<std::string> ids = PullIds(*live, kIds + 4, 1000);
  ASSERT_EQ(ids.size(), static_cast<std::size_t>(kIds + 4));
  // Key order: the short ids, then "m10000", "m10001", ...
  EXPECT_THAT(std::vector<std::string>(ids.begin(), ids.begin() + 4),
              ElementsAre("a", "b", "r", "ab"));
  for (int n = 0; n < kIds; ++n) {
    ASSERT_EQ(ids[4 + n], absl::StrCat("m", 10'000 + n));
  }
}

}  // namespace
}  // namespace cairn::persistence
