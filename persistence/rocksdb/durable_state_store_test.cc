// The RocksDB durable state store beyond DurableStateStoreSpec (which
// tck_test runs on it): what survives a reopen, stores written before it
// existed (no `state` and `state-tags` column families) in every mode,
// damaged records, read-only refusals, and two store objects on one
// database.

#include "persistence/storage/durable_state_store.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/format1_testdata.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "serialization/payload.h"

namespace cairn::persistence {
namespace {

using testing::CurrentChanges;
using testing::DeleteObject;
using testing::GetObject;
using ::testing::HasSubstr;
using testing::UpsertObject;

serialization::Payload Text(const char* text) {
  return serialization::Payload::Of(std::string(text));
}

std::string TextOf(const absl::StatusOr<DurableStateObject>& object) {
  if (!object.ok()) return object.status().ToString();
  if (!object->value.has_value()) return "<none>";
  const std::string* text = object->value->As<std::string>();
  return text == nullptr ? "<not a string>" : *text;
}

// A store opened by the plugin, and a durable state store on it.
struct Opened {
  std::unique_ptr<RocksDbStore> store;
  std::unique_ptr<DurableStateStore> state;
};

Opened Open(const std::string& path,
            RocksDbMode mode = RocksDbMode::kReadWrite) {
  RocksDbOptions options;
  options.path = path;
  options.fsync = false;
  options.mode = mode;
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
  EXPECT_OK(store);
  Opened opened;
  if (!store.ok()) return opened;
  opened.store = std::make_unique<RocksDbStore>(*std::move(store));
  opened.state =
      opened.store->NewDurableStateStore(testing::NewTestSerialization());
  return opened;
}

// The store opened with RocksDB alone, every column family it has.
class RawStore {
 public:
  explicit RawStore(const std::string& path) {
    status_ =
        rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names_);
    if (!status_.ok()) return;
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const std::string& name : names_) {
      families.push_back({name, rocksdb::ColumnFamilyOptions()});
    }
    rocksdb::DB* raw = nullptr;
    status_ = rocksdb::DB::Open(rocksdb::DBOptions(), path, families, &handles_,
                                &raw);
    db_.reset(raw);
  }
  ~RawStore() {
    if (db_ == nullptr) return;
    for (rocksdb::ColumnFamilyHandle* h : handles_) {
      db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    }
    db_->Close().PermitUncheckedError();
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
  std::vector<std::string> names_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<rocksdb::DB> db_;
};

// Drops the durable state families, as a store of an older build lacks
// them.
void DropStateFamilies(const std::string& path) {
  RawStore raw(path);
  ASSERT_OK(raw.status());
  for (const char* name : {"state", "state-tags"}) {
    rocksdb::ColumnFamilyHandle* family = raw.Family(name);
    ASSERT_NE(family, nullptr) << name;
    ASSERT_OK(raw.db().DropColumnFamily(family));
  }
}

std::vector<int64_t> Offsets(DurableStateStore& state, const std::string& tag) {
  absl::StatusOr<std::vector<DurableStateChange>> changes =
      CurrentChanges(state, tag, 0, 1000);
  EXPECT_OK(changes);
  std::vector<int64_t> offsets;
  if (!changes.ok()) return offsets;
  for (const DurableStateChange& c : *changes) offsets.push_back(c.offset);
  return offsets;
}

TEST(RocksDbDurableStateStoreTest, ValuesRevisionsAndOffsetsSurviveAReopen) {
  ASSERT_OK_AND_ASSIGN(testing::TempDir dir, testing::TempDir::Make());
  const std::string path = dir.path() + "/store";
  {
    Opened opened = Open(path);
    ASSERT_NE(opened.state, nullptr);
    ASSERT_OK(UpsertObject(*opened.state, "a", 1, Text("a1"), "blue"));
    ASSERT_OK(UpsertObject(*opened.state, "b", 1, Text("b1"), "blue"));
    // The delete is a change of its own, at the next offset, under the
    // value's tag; offset 2, whose entry it replaces, is not given again.
    ASSERT_OK(DeleteObject(*opened.state, "b", 2));
    // An id never written: its delete records the revision, nothing else.
    ASSERT_OK(DeleteObject(*opened.state, "never", 1));
  }
  Opened opened = Open(path);
  ASSERT_NE(opened.state, nullptr);
  absl::StatusOr<DurableStateObject> a = GetObject(*opened.state, "a");
  EXPECT_EQ(TextOf(a), "a1");
  ASSERT_OK(a);
  EXPECT_EQ(a->revision, 1);
  absl::StatusOr<DurableStateObject> b = GetObject(*opened.state, "b");
  EXPECT_EQ(TextOf(b), "<none>");
  ASSERT_OK(b);
  EXPECT_EQ(b->revision, 2);
  absl::StatusOr<DurableStateObject> never = GetObject(*opened.state, "never");
  ASSERT_OK(never);
  EXPECT_EQ(never->revision, 1);
  EXPECT_TRUE(Offsets(*opened.state, "").empty());
  absl::StatusOr<std::vector<DurableStateChange>> changes =
      CurrentChanges(*opened.state, "blue", 0, 1000);
  ASSERT_OK(changes);
  ASSERT_EQ(changes->size(), 2u);
  EXPECT_EQ((*changes)[0].persistence_id, "a");
  EXPECT_FALSE((*changes)[0].deleted);
  EXPECT_EQ((*changes)[0].offset, 1);
  EXPECT_EQ((*changes)[1].persistence_id, "b");
  EXPECT_TRUE((*changes)[1].deleted);
  EXPECT_TRUE((*changes)[1].value.empty());
  EXPECT_EQ((*changes)[1].revision, 2);
  EXPECT_EQ((*changes)[1].offset, 3);
  EXPECT_GT((*changes)[1].timestamp_ms, 0);
  EXPECT_EQ(UpsertObject(*opened.state, "b", 2, Text("b2")).code(),
            absl::StatusCode::kFailedPrecondition);
  // Deleted again, the tombstone moves on; written again, it goes.
  ASSERT_OK(DeleteObject(*opened.state, "b", 3));
  EXPECT_EQ(Offsets(*opened.state, "blue"), (std::vector<int64_t>{1, 4}));
  ASSERT_OK(UpsertObject(*opened.state, "b", 4, Text("b4"), "red"));
  EXPECT_EQ(Offsets(*opened.state, "blue"), std::vector<int64_t>{1});
  EXPECT_EQ(Offsets(*opened.state, "red"), std::vector<int64_t>{5});
}

TEST(RocksDbDurableStateStoreTest, ADamagedTombstoneIsDataLossNamingTheId) {
  ASSERT_OK_AND_ASSIGN(testing::TempDir dir, testing::TempDir::Make());
  const std::string path = dir.path() + "/store";
  {
    Opened opened = Open(path);
    ASSERT_NE(opened.state, nullptr);
    ASSERT_OK(UpsertObject(*opened.state, "p-1", 1, Text("value"), "t"));
    ASSERT_OK(DeleteObject(*opened.state, "p-1", 2));
  }
  {
    RawStore raw(path);
    ASSERT_OK(raw.status());
    rocksdb::ColumnFamilyHandle* state = raw.Family("state");
    ASSERT_NE(state, nullptr);
    std::unique_ptr<rocksdb::Iterator> it(
        raw.db().NewIterator(rocksdb::ReadOptions(), state));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    const std::string key = it->key().ToString();
    std::string value = it->value().ToString();
    it.reset();
    value[value.size() / 2] ^= 0x01;
    ASSERT_OK(raw.db().Put(rocksdb::WriteOptions(), state, key, value));
  }
  Opened opened = Open(path);
  ASSERT_NE(opened.state, nullptr);
  absl::StatusOr<std::vector<DurableStateChange>> changes =
      CurrentChanges(*opened.state, "t", 0, 10);
  EXPECT_EQ(changes.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(changes.status().message()), HasSubstr("'p-1'"));
  EXPECT_EQ(UpsertObject(*opened.state, "p-1", 3, Text("v3")).code(),
            absl::StatusCode::kDataLoss);
}

TEST(RocksDbDurableStateStoreTest, AStoreOfAnOlderBuildIsReadThenWritten) {
  ASSERT_OK_AND_ASSIGN(testing::TempDir dir, testing::TempDir::Make());
  const std::string path = dir.path() + "/store";
  {
    Opened opened = Open(path);
    ASSERT_NE(opened.store, nullptr);
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<Journal> journal,
        opened.store->NewJournal(testing::NewTestSerialization()));
    ASSERT_OK(testing::WriteMessages(*journal,
                                     {testing::Single("e", 1, Text("event"))})
                  .batch);
  }
  DropStateFamilies(path);
  {
    Opened reader = Open(path, RocksDbMode::kReadOnly);
    ASSERT_NE(reader.state, nullptr);
    absl::StatusOr<DurableStateObject> none = GetObject(*reader.state, "a");
    ASSERT_OK(none);
    EXPECT_FALSE(none->value.has_value());
    EXPECT_EQ(none->revision, 0);
    EXPECT_TRUE(Offsets(*reader.state, "").empty());
    absl::Status refused = UpsertObject(*reader.state, "a", 1, Text("a1"));
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(refused.message()), HasSubstr("read-only"));
  }
  {
    Opened writer = Open(path);  // adds the families
    ASSERT_NE(writer.state, nullptr);
    ASSERT_OK(UpsertObject(*writer.state, "a", 1, Text("a1"), "t"));
    EXPECT_EQ(Offsets(*writer.state, "t"), std::vector<int64_t>{1});
  }
  Opened reader = Open(path, RocksDbMode::kReadOnly);
  ASSERT_NE(reader.state, nullptr);
  EXPECT_EQ(TextOf(GetObject(*reader.state, "a")), "a1");
}

TEST(RocksDbDurableStateStoreTest, TheFormat1StoreTakesDurableState) {
  ASSERT_OK_AND_ASSIGN(testing::TempDir dir, testing::TempDir::Make());
  const std::string path = dir.path() + "/format1";
  ASSERT_OK(testing::CopyFormat1Store(path));
  Opened opened = Open(path);
  ASSERT_NE(opened.state, nullptr);
  ASSERT_OK(UpsertObject(*opened.state, "s", 1, Text("s1"), "t"));
  EXPECT_EQ(TextOf(GetObject(*opened.state, "s")), "s1");
  EXPECT_EQ(Offsets(*opened.state, "t"), std::vector<int64_t>{1});
}

TEST(RocksDbDurableStateStoreTest, ADamagedRecordIsDataLossNamingTheId) {
  ASSERT_OK_AND_ASSIGN(testing::TempDir dir, testing::TempDir::Make());
  const std::string path = dir.path() + "/store";
  {
    Opened opened = Open(path);
    ASSERT_NE(opened.state, nullptr);
    ASSERT_OK(UpsertObject(*opened.state, "p-1", 1, Text("value"), "t"));
  }
  {
    RawStore raw(path);
    ASSERT_OK(raw.status());
    rocksdb::ColumnFamilyHandle* state = raw.Family("state");
    ASSERT_NE(state, nullptr);
    std::unique_ptr<rocksdb::Iterator> it(
        raw.db().NewIterator(rocksdb::ReadOptions(), state));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    const std::string key = it->key().ToString();
    std::string value = it->value().ToString();
    it.reset();
    value[value.size() / 2] ^= 0x01;
    ASSERT_OK(raw.db().Put(rocksdb::WriteOptions(), state, key, value));
  }
  Opened opened = Open(path);
  ASSERT_NE(opened.state, nullptr);
  absl::StatusOr<DurableStateObject> got = GetObject(*opened.state, "p-1");
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(got.status().message()), HasSubstr("'p-1'"));
  absl::StatusOr<std::vector<DurableStateChange>> changes =
      CurrentChanges(*opened.state, "t", 0, 10);
  EXPECT_EQ(changes.status().code(), absl::StatusCode::kDataLoss);
  // Its revision is unknown: nothing is written over it.
  EXPECT_EQ(UpsertObject(*opened.state, "p-1", 2, Text("v2")).code(),
            absl::StatusCode::kDataLoss);
  // Other ids are unaffected.
  ASSERT_OK(UpsertObject(*opened.state, "p-2", 1, Text("fine")));
  EXPECT_EQ(TextOf(GetObject(*opened.state, "p-2")), "fine");
}

TEST(RocksDbDurableStateStoreTest, TwoStoresOnOneDatabaseShareRevisions) {
  ASSERT_OK_AND_ASSIGN(testing::TempDir dir, testing::TempDir::Make());
  Opened first = Open(dir.path() + "/store");
  ASSERT_NE(first.state, nullptr);
  std::unique_ptr<DurableStateStore> second =
      first.store->NewDurableStateStore(testing::NewTestSerialization());
  constexpr int kIds = 50;
  std::vector<absl::Status> from_first(kIds), from_second(kIds);
  std::thread other([&] {
    for (int i = 0; i < kIds; ++i) {
      from_second[i] =
          UpsertObject(*second, "id-" + std::to_string(i), 1, Text("2"), "t");
    }
  });
  for (int i = 0; i < kIds; ++i) {
    from_first[i] = UpsertObject(*first.state, "id-" + std::to_string(i), 1,
                                 Text("1"), "t");
  }
  other.join();
  for (int i = 0; i < kIds; ++i) {
    // Exactly one writer of revision 1 wins.
    EXPECT_NE(from_first[i].ok(), from_second[i].ok()) << i;
  }
  const std::vector<int64_t> offsets = Offsets(*first.state, "t");
  ASSERT_EQ(offsets.size(), static_cast<size_t>(kIds));
  EXPECT_TRUE(std::is_sorted(offsets.begin(), offsets.end()));
  EXPECT_EQ(std::adjacent_find(offsets.begin(), offsets.end()), offsets.end());
}

}  // namespace
}  // namespace cairn::persistence
