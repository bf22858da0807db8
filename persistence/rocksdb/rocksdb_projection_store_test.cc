// ProjectionStore: offsets by projection id, and a read model whose writes
// commit with an offset in one atomic write.

#include "persistence/rocksdb/rocksdb_projection_store.h"

#include <map>
#include <string>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/temp_dir.h"
#include "rocksdb/db.h"

namespace cairn::persistence {
namespace {

using testing::TempDir;

class ProjectionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make("projection-store");
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    Reopen();
  }
  void Reopen() {
    store_.reset();
    absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
        RocksDbProjectionStore::Open(dir_->path());
    ASSERT_OK(store);
    store_ = *std::move(store);
  }
  std::string Value(std::string_view key) {
    absl::StatusOr<std::optional<std::string>> v = store_->Get(key);
    EXPECT_OK(v);
    return v.ok() && v->has_value() ? **v : "<none>";
  }

  std::optional<TempDir> dir_;
  std::shared_ptr<ProjectionStore> store_;
};

TEST_F(ProjectionStoreTest, OffsetsAreKeptPerIdAcrossAReopen) {
  EXPECT_EQ(*store_->ReadOffset({"p", "a"}), (ProjectionOffset{0, 0}));
  ASSERT_OK(store_->SaveOffset({"p", "a"}, {7, 1}));
  ASSERT_OK(store_->SaveOffset({"p", "b"}, {9, 2}));
  // The name's length is part of the key: ("pa", "") is not ("p", "a").
  ASSERT_OK(store_->SaveOffset({"pa", ""}, {1, 1}));
  Reopen();
  EXPECT_EQ(*store_->ReadOffset({"p", "a"}), (ProjectionOffset{7, 1}));
  EXPECT_EQ(*store_->ReadOffset({"p", "b"}), (ProjectionOffset{9, 2}));
  EXPECT_EQ(*store_->ReadOffset({"pa", ""}), (ProjectionOffset{1, 1}));
  // Large values survive the encoding.
  ASSERT_OK(store_->SaveOffset({"p", "a"}, {int64_t{1} << 40, 3}));
  EXPECT_EQ(*store_->ReadOffset({"p", "a"}),
            (ProjectionOffset{int64_t{1} << 40, 3}));
}

TEST_F(ProjectionStoreTest,
       ATransactionReadsItsOwnWritesAndCommitsWithItsOffset) {
  {
    ProjectionTransaction tx = store_->Begin();
    tx.Put("total/a", "10");
    EXPECT_EQ(**tx.Get("total/a"), "10");
    EXPECT_EQ(Value("total/a"), "<none>");  // not committed yet
    tx.Put("total/a", "15");
    tx.Put("total/b", "1");
    tx.Delete("total/b");
    EXPECT_FALSE(tx.Get("total/b")->has_value());
    ASSERT_OK(store_->Commit(std::move(tx), {"totals", ""}, {0, 0}, {3, 1}));
  }
  EXPECT_EQ(Value("total/a"), "15");
  EXPECT_EQ(Value("total/b"), "<none>");
  EXPECT_EQ(*store_->ReadOffset({"totals", ""}), (ProjectionOffset{3, 1}));
  // A transaction not committed leaves nothing.
  {
    ProjectionTransaction tx = store_->Begin();
    tx.Put("total/a", "99");
  }
  Reopen();
  EXPECT_EQ(Value("total/a"), "15");
}

// Two runs of one projection at once both begin at offset 0: the first
// commit wins; the second is refused, stores nothing, and goes on from the
// winner's offset.
TEST_F(ProjectionStoreTest, ACommitFromAnOffsetThatMovedStoresNothing) {
  const ProjectionId id{"totals", ""};
  ProjectionTransaction first = store_->Begin();
  first.Put("total/a", "10");
  ASSERT_OK(store_->Commit(std::move(first), id, {0, 0}, {5, 1}));
  ProjectionTransaction second = store_->Begin();
  second.Put("total/a", "20");
  second.Put("total/b", "1");
  const absl::Status refused =
      store_->Commit(std::move(second), id, {0, 0}, {5, 1});
  EXPECT_EQ(refused.code(), absl::StatusCode::kAborted) << refused;
  EXPECT_THAT(std::string(refused.message()),
              ::testing::HasSubstr("is at offset 5 (1 envelopes), not at 0"));
  EXPECT_EQ(Value("total/a"), "10");
  EXPECT_EQ(Value("total/b"), "<none>");
  ProjectionTransaction after = store_->Begin();
  after.Put("total/a", "11");
  ASSERT_OK(store_->Commit(std::move(after), id, {5, 1}, {6, 1}));
  EXPECT_EQ(Value("total/a"), "11");
  EXPECT_EQ(*store_->ReadOffset(id), (ProjectionOffset{6, 1}));
}

TEST_F(ProjectionStoreTest, ForEachVisitsAPrefixInKeyOrder) {
  ProjectionTransaction tx = store_->Begin();
  tx.Put("t/b", "2");
  tx.Put("t/a", "1");
  tx.Put("u/a", "3");
  tx.Put("t/c", "4");
  ASSERT_OK(store_->Commit(std::move(tx), {"x", ""}, {0, 0}, {1, 1}));
  std::map<std::string, std::string> seen;
  std::string order;
  ASSERT_OK(store_->ForEach("t/", [&](std::string_view k, std::string_view v) {
    order += std::string(k) + ";";
    seen[std::string(k)] = std::string(v);
    return k != "t/b";  // stop after t/b
  }));
  EXPECT_EQ(order, "t/a;t/b;");
  EXPECT_EQ(seen["t/a"], "1");
}

TEST_F(ProjectionStoreTest, AnUnreadableOffsetIsDataLossNamingTheProjection) {
  store_.reset();
  {
    // Write a bad value where the offset of ("p", "") is kept.
    rocksdb::DBOptions options;
    std::vector<rocksdb::ColumnFamilyDescriptor> families = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()},
        {"projection_offsets", rocksdb::ColumnFamilyOptions()}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_OK(
        rocksdb::DB::Open(options, dir_->path(), families, &handles, &db));
    ASSERT_OK(db->Put(rocksdb::WriteOptions(), handles[1],
                      std::string("\0\0\0\1p", 5), "bad"));
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    delete db;
  }
  Reopen();
  absl::StatusOr<ProjectionOffset> offset = store_->ReadOffset({"p", ""});
  ASSERT_EQ(offset.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(offset.status().message().find("projection 'p'"), std::string::npos)
      << offset.status();
}

TEST_F(ProjectionStoreTest, OpeningWhatIsNotThereFailsSayingWhere) {
  RocksDbProjectionStore::Options options;
  options.create_if_missing = false;
  absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
      RocksDbProjectionStore::Open(dir_->path() + "/missing", options);
  ASSERT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(store.status().message().find("/missing"), std::string::npos);
}

}  // namespace
}  // namespace cairn::persistence
