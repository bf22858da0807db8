// Stores written before tags existed have no `tags` column family. A
// read-only open reads them (no tagged events); a read-write open adds the
// column family, and tagging starts at offset 1.

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"

namespace cairn::persistence {
namespace {

// Drops the tags column family, as a store of an older build lacks it.
void DropTags(const std::string& path) {
  // Every family the store has (a read-write open must name them all).
  std::vector<std::string> names;
  rocksdb::Status s =
      rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names);
  ASSERT_OK(s);
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const std::string& name : names) {
    families.push_back({name, rocksdb::ColumnFamilyOptions()});
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::Open(rocksdb::DBOptions(), path, families, &handles, &raw);
  ASSERT_OK(s);
  std::unique_ptr<rocksdb::DB> db(raw);
  const auto tags = std::find(names.begin(), names.end(), "tags");
  ASSERT_NE(tags, names.end());
  ASSERT_OK(db->DropColumnFamily(handles[tags - names.begin()]));
  for (rocksdb::ColumnFamilyHandle* h : handles) {
    ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  }
  ASSERT_OK(db->Close());
}

std::unique_ptr<Journal> JournalOn(const std::string& path, RocksDbMode mode) {
  RocksDbOptions options;
  options.path = path;
  options.fsync = false;
  options.mode = mode;
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
  EXPECT_OK(store);
  if (!store.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      store->NewJournal(testing::NewTestSerialization());
  EXPECT_OK(journal);
  return journal.ok() ? *std::move(journal) : nullptr;
}

std::vector<int64_t> TagOffsets(Journal& journal, const std::string& tag) {
  absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
      journal.NewReadJournal();
  EXPECT_OK(queries);
  std::vector<int64_t> offsets;
  if (!queries.ok()) return offsets;
  auto stream = (*queries)->CurrentEventsByTag(tag, 0);
  absl::StatusOr<std::vector<EventEnvelope>> all =
      testing::PullAll(*stream, 10);
  EXPECT_OK(all);
  if (all.ok()) {
    for (const EventEnvelope& e : *all) offsets.push_back(e.offset);
  }
  return offsets;
}

TEST(TagsUpgradeTest, AStoreWithoutTagsIsReadAndThenTagged) {
  absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/store";
  {
    std::unique_ptr<Journal> journal = JournalOn(path, RocksDbMode::kReadWrite);
    ASSERT_NE(journal, nullptr);
    ASSERT_OK(testing::WriteMessages(
                  *journal,
                  {testing::Single(
                      "a", 1, serialization::Payload::Of(std::string("x")))})
                  .batch);
  }
  DropTags(path);
  {
    std::unique_ptr<Journal> reader = JournalOn(path, RocksDbMode::kReadOnly);
    ASSERT_NE(reader, nullptr);
    testing::ReplayOutcome replay =
        testing::ReplayMessages(*reader, "a", 1, kMaxSequenceNr, 10);
    ASSERT_OK(replay.status);
    EXPECT_EQ(replay.events.size(), 1u);
    EXPECT_TRUE(TagOffsets(*reader, "t").empty());
  }
  std::unique_ptr<Journal> writer = JournalOn(path, RocksDbMode::kReadWrite);
  ASSERT_NE(writer, nullptr);
  AtomicWrite tagged =
      testing::Single("a", 2, serialization::Payload::Of(std::string("y")));
  tagged.events[0].tags = {"t"};
  ASSERT_OK(testing::WriteMessages(*writer, {std::move(tagged)}).batch);
  EXPECT_EQ(TagOffsets(*writer, "t"), std::vector<int64_t>{1});
}

}  // namespace
}  // namespace cairn::persistence
