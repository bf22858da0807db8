// The journal_tool's library (internal/store_inspection.h) on stores this
// test writes: JSON escaping, reading a store another handle has open for
// writing, and problems the shell test does not stage.

#include "persistence/rocksdb/internal/store_inspection.h"

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/store_families.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(JsonStringTest, EscapesWhatJsonRequires) {
  EXPECT_EQ(JsonString("plain"), "\"plain\"");
  EXPECT_EQ(JsonString(""), "\"\"");
  EXPECT_EQ(JsonString("q\"b\\n\nr\rt\t"), "\"q\\\"b\\\\n\\nr\\rt\\t\"");
  EXPECT_EQ(JsonString(std::string("\0\x01\x1f\x7f", 4)),
            "\"\\u0000\\u0001\\u001f\\u007f\"");
}

TEST(JsonStringTest, KeepsValidUtf8AndEscapesOtherBytes) {
  EXPECT_EQ(JsonString("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  // A lone continuation byte, a truncated sequence, an overlong encoding,
  // a surrogate, and bytes that never occur in UTF-8.
  EXPECT_EQ(JsonString("\x80"), "\"\\u0080\"");
  EXPECT_EQ(JsonString("\xe2\x82"), "\"\\u00e2\\u0082\"");
  EXPECT_EQ(JsonString("\xc0\xaf"), "\"\\u00c0\\u00af\"");
  EXPECT_EQ(JsonString("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");
  EXPECT_EQ(JsonString("\xff\xfe"), "\"\\u00ff\\u00fe\"");
}

class StoreInspectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    options_.path = dir_->path() + "/store";
  }

  // Problems reported, as "<where>: <message>".
  std::vector<std::string> problems_;
  void Report(std::string_view where, const absl::Status& problem) {
    problems_.push_back(std::string(where) + ": " +
                        std::string(problem.message()));
  }

  std::optional<testing::TempDir> dir_;
  RocksDbOptions options_;
};

// journal_tool may run while the application has the store open.
TEST_F(StoreInspectionTest, ReadsAStoreOpenForWritingElsewhere) {
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
  ASSERT_OK(store);
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      store->NewJournal(testing::NewTestSerialization());
  ASSERT_OK(journal);
  std::vector<AtomicWrite> writes;
  for (int n = 1; n <= 3; ++n) {
    writes.push_back(
        testing::Single("b", n, serialization::Payload::Of(std::string("x"))));
  }
  writes.push_back(
      testing::Single("a", 1, serialization::Payload::Of(std::string("y"))));
  ASSERT_OK(testing::WriteMessages(**journal, std::move(writes)).batch);

  absl::StatusOr<std::shared_ptr<Db>> db =
      Db::OpenReadOnly(options_.path, nullptr);
  ASSERT_OK(db);
  std::ostringstream out;
  int64_t problems = -1;
  ASSERT_OK((*db)->Read([&](const Db::View& view) {
    problems = ListStreams(
        view, out,
        [&](std::string_view w, const absl::Status& p) { Report(w, p); });
    return absl::OkStatus();
  }));
  EXPECT_EQ(problems, 0);
  EXPECT_EQ(out.str(),
            "{\"id\":\"a\",\"highest_sequence_nr\":1,\"events\":1}\n"
            "{\"id\":\"b\",\"highest_sequence_nr\":3,\"events\":3}\n");
  // Read-only: writing through it is refused.
  absl::Status written = (*db)->Write(
      [](const Db::View&, rocksdb::WriteBatch&) { return absl::OkStatus(); });
  EXPECT_EQ(written.code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(StoreInspectionTest, OpenReadOnlyRefusesWhatIsNotACairnStore) {
  absl::StatusOr<std::shared_ptr<Db>> missing =
      Db::OpenReadOnly(options_.path, nullptr);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound)
      << missing.status();
  {
    rocksdb::Options plain;
    plain.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    ASSERT_OK(rocksdb::DB::Open(plain, options_.path, &raw));
    delete raw;
  }
  absl::StatusOr<std::shared_ptr<Db>> foreign =
      Db::OpenReadOnly(options_.path, nullptr);
  EXPECT_EQ(foreign.status().code(), absl::StatusCode::kNotFound)
      << foreign.status();
  EXPECT_THAT(std::string(foreign.status().message()),
              HasSubstr("not a cairn store"));
}

// Records no journal writes but damage or a bug could leave: an event at
// sequence number 0, keys that are not record keys, a key under a stream
// that is not its own.
TEST_F(StoreInspectionTest, CheckReportsEveryKindOfBadRecord) {
  {
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
    ASSERT_OK(store);
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(testing::NewTestSerialization());
    ASSERT_OK(journal);
    ASSERT_OK(testing::WriteMessages(
                  **journal,
                  {testing::Single(
                       "p", 1, serialization::Payload::Of(std::string("x"))),
                   testing::Single(
                       "p", 2, serialization::Payload::Of(std::string("y")))})
                  .batch);
  }
  {
    std::vector<rocksdb::ColumnFamilyDescriptor> families =
        testing::StoreColumnFamilies();
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_OK(rocksdb::DB::Open(rocksdb::DBOptions(), options_.path, families,
                                &handles, &raw));
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string event;
    ASSERT_OK(
        db->Get(rocksdb::ReadOptions(), handles[1], RecordKey("p", 1), &event));
    rocksdb::WriteOptions write;
    ASSERT_OK(db->Put(write, handles[1], RecordKey("p", 0), event));
    ASSERT_OK(db->Put(write, handles[1], "short", event));
    ASSERT_OK(db->Put(write, handles[1], RecordKey("q", 1), event));
    ASSERT_OK(db->Put(write, handles[2], RecordKey("p", 1) + "!", "x"));
    ASSERT_OK(db->Put(write, handles[3], RecordKey("p", 1), "x"));
    for (rocksdb::ColumnFamilyHandle* handle : handles) {
      ASSERT_OK(db->DestroyColumnFamilyHandle(handle));
    }
    ASSERT_OK(db->Close());
  }
  absl::StatusOr<std::shared_ptr<Db>> db =
      Db::OpenReadOnly(options_.path, nullptr);
  ASSERT_OK(db);
  CheckCounts counts;
  ASSERT_OK((*db)->Read([&](const Db::View& view) {
    counts = CheckStore(
        view, [&](std::string_view w, const absl::Status& p) { Report(w, p); });
    return absl::OkStatus();
  }));
  EXPECT_EQ(counts.events, 5);
  EXPECT_EQ(counts.snapshots, 1);
  EXPECT_EQ(counts.metadata, 1);
  EXPECT_EQ(counts.problems, 5);
  EXPECT_THAT(problems_,
              ElementsAre(HasSubstr("events: persistence id 'p', sequence nr "
                                    "0: corrupt event: event sequence numbers "
                                    "start at 1"),
                          HasSubstr("events: persistence id 'q', sequence nr "
                                    "1: corrupt event: checksum mismatch "
                                    "(damaged, or another event's record)"),
                          // Record keys start with a zero byte; "s" after.
                          HasSubstr("events: malformed key 73686f7274"),
                          HasSubstr("snapshots: malformed key"),
                          HasSubstr("metadata: malformed key")));

  // dump skips what it cannot read and says so.
  std::ostringstream out;
  problems_.clear();
  int64_t problems = 0;
  ASSERT_OK((*db)->Read([&](const Db::View& view) {
    problems = DumpStream(
        view, "p", out,
        [&](std::string_view w, const absl::Status& p) { Report(w, p); });
    return absl::OkStatus();
  }));
  EXPECT_EQ(problems, 1);
  EXPECT_THAT(problems_, ElementsAre(HasSubstr("sequence nr 0")));
  EXPECT_THAT(out.str(), HasSubstr("\"seq\":1,"));
  EXPECT_THAT(out.str(), HasSubstr("\"seq\":2,"));
}

TEST_F(StoreInspectionTest, ListsNothingForAnEmptyStore) {
  { ASSERT_OK(RocksDbStore::Open(options_)); }
  absl::StatusOr<std::shared_ptr<Db>> db =
      Db::OpenReadOnly(options_.path, nullptr);
  ASSERT_OK(db);
  std::ostringstream out;
  CheckCounts counts;
  ASSERT_OK((*db)->Read([&](const Db::View& view) {
    EXPECT_EQ(ListStreams(view, out,
                          [&](std::string_view w, const absl::Status& p) {
                            Report(w, p);
                          }),
              0);
    counts = CheckStore(
        view, [&](std::string_view w, const absl::Status& p) { Report(w, p); });
    return absl::OkStatus();
  }));
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(counts.events + counts.snapshots + counts.metadata, 0);
  EXPECT_THAT(problems_, IsEmpty());
}

}  // namespace
}  // namespace cairn::persistence::rocksdb_internal
