// A store written by event format version 1 (a StoredEvent FlatBuffer per
// event), kept as test data in testdata/format1 (its README; written by
// testing/write_format1_store), still reads: every stream replays with
// every field as written, highest sequence numbers, snapshots and queries
// are as they were, read-write and read-only, and new events append to its
// old streams. Everything is asserted through the public read API, so the
// test holds for every later format that must read this one.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/format1_testdata.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"

namespace cairn::persistence {
namespace {

using testing::Amount;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using testing::TempDir;
using testing::TestEventT;

// The odd persistence id: a NUL, a quote, a newline and bytes that are not
// UTF-8.
const std::string kOddId = std::string("odd\0id\"\n\xc3(", 10);

// A payload as text: strings quoted and escaped by absl::CHexEscape (a byte
// as \xNN, and so a hex digit right after one: "a\0b" is "a\x00\x62"),
// the test types by field.
std::string Show(const serialization::Payload& payload) {
  if (const auto* text = payload.As<std::string>()) {
    return absl::StrCat("\"", absl::CHexEscape(*text), "\"");
  }
  if (const auto* amount = payload.As<Amount>()) {
    return absl::StrCat("Amount{", amount->value, "}");
  }
  if (const auto* event = payload.As<TestEventT>()) {
    return absl::StrCat("TestEvent{", event->name, ",", event->value, ",[",
                        absl::StrJoin(event->labels, ","), "]}");
  }
  return absl::StrCat("<", payload.TypeName(), ">");
}

std::string ShowTags(const std::vector<std::string>& tags) {
  std::vector<std::string> escaped;
  for (const std::string& tag : tags) escaped.push_back(absl::CHexEscape(tag));
  return absl::StrCat("[", absl::StrJoin(escaped, ","), "]");
}

// Every field of a replayed event a user relies on.
std::string Show(const PersistentRepr& e) {
  return absl::StrCat(absl::CHexEscape(e.persistence_id), " ", e.sequence_nr,
                      " ", Show(e.payload), " manifest=", e.manifest,
                      " adapter=", e.adapter_manifest,
                      " writer=", e.writer_uuid, " ts=", e.timestamp,
                      " tags=", ShowTags(e.tags));
}

// Every field of a query's event.
std::string Show(const EventEnvelope& e) {
  return absl::StrCat("@", e.offset, " ", absl::CHexEscape(e.persistence_id),
                      " ", e.sequence_nr, " ", Show(e.event),
                      " adapter=", e.adapter_manifest, " ts=", e.timestamp,
                      " tags=", ShowTags(e.tags));
}

// Event n of "long", as write_format1_store wrote it.
std::string LongEvent(int64_t n) {
  std::vector<std::string> tags;
  if (n % 50 == 0) tags.push_back("fifty");
  if (n % 100 == 0) tags.push_back("hundred");
  return absl::StrCat(
      "long ", n, " ",
      n % 2 == 1
          ? absl::StrCat("\"long-", n, "\" manifest=")
          : absl::StrCat("Amount{", 10 * n, "} manifest=cairn.test.Amount"),
      " adapter= writer=", n <= 300 ? "writer-long-1" : "writer-long-2",
      " ts=", 1700000000000 + n, " tags=", ShowTags(tags));
}

std::vector<std::string> LongEvents(int64_t from, int64_t to) {
  std::vector<std::string> events;
  for (int64_t n = from; n <= to; ++n) events.push_back(LongEvent(n));
  return events;
}

// The events of each stream but "long", every field written out.
const std::vector<std::string> kTagged = {
    "tagged 1 TestEvent{t-1,1,[x]} manifest=cairn.test.TestEvent "
    "adapter=tagged-v1 writer=writer-tagged-1 ts=1700000101000 tags=[green]",
    "tagged 2 \"t-2\" manifest= adapter=tagged-v1 writer=writer-tagged-1 "
    "ts=1700000102000 tags=[green,blue,red]",
    "tagged 3 Amount{3} manifest=cairn.test.Amount adapter= "
    "writer=writer-tagged-1 ts=1700000103000 tags=[]",
    "tagged 4 TestEvent{t-4,-4,[]} manifest=cairn.test.TestEvent "
    "adapter=tagged-v2 writer=writer-tagged-1 ts=1700000104000 tags=[blue]",
    "tagged 5 \"t-5\" manifest= adapter=tagged-v2 writer=writer-tagged-2 "
    "ts=1700000105000 tags=[green,blue]",
};
const std::vector<std::string> kOdd = {
    "odd\\x00id\\\"\\n\\xc3( 1 \"caf\\xc3\\xa9 \\xff\\x01\" manifest= "
    "adapter= writer=writer-odd-1 ts=1700000201000 tags=[green]",
    "odd\\x00id\\\"\\n\\xc3( 2 \"a\\x00\\x62\" manifest= adapter= "
    "writer=writer-odd-1 ts=1700000202000 tags=[]",
    "odd\\x00id\\\"\\n\\xc3( 3 Amount{-1} manifest=cairn.test.Amount "
    "adapter= writer=writer-odd-1 ts=1700000203000 tags=[caf\\xc3\\xa9]",
};
const std::vector<std::string> kDeleted = {
    "deleted 4 Amount{4} manifest=cairn.test.Amount adapter= "
    "writer=writer-deleted-1 ts=1700000304000 tags=[]",
    "deleted 5 Amount{5} manifest=cairn.test.Amount adapter= "
    "writer=writer-deleted-1 ts=1700000305000 tags=[]",
};
const std::vector<std::string> kRejected = {
    "rejected 1 \"r-1\" manifest= adapter= writer=writer-rejected-1 "
    "ts=1700000501000 tags=[]",
};
const std::vector<std::string> kWalOnly = {
    "wal-only 1 \"w-1\" manifest= adapter= writer=writer-wal-1 "
    "ts=1700000601000 tags=[]",
    "wal-only 2 \"w-2\" manifest= adapter= writer=writer-wal-1 "
    "ts=1700000602000 tags=[red]",
};

// Each query event's offset, persistence id and sequence number.
std::vector<std::string> Heads(const std::vector<std::string>& shown) {
  std::vector<std::string> heads;
  for (const std::string& e : shown) {
    heads.push_back(e.substr(0, e.find(' ', e.find(' ', e.find(' ') + 1) + 1)));
  }
  return heads;
}

class Format1StoreTest : public ::testing::TestWithParam<RocksDbMode> {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make("format1");
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    path_ = dir_->path() + "/store";
    absl::Status copied = testing::CopyFormat1Store(path_);
    ASSERT_OK(copied);
    Open(GetParam());
  }

  void Open(RocksDbMode mode) {
    read_journal_.reset();
    journal_.reset();
    snapshots_.reset();
    RocksDbOptions options;
    options.path = path_;
    options.mode = mode;
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
    ASSERT_OK(store);
    auto serialization = testing::NewTestSerialization();
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(serialization);
    ASSERT_OK(journal);
    journal_ = *std::move(journal);
    snapshots_ = store->NewSnapshotStore(serialization);
    absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
        journal_->NewReadJournal();
    ASSERT_OK(queries);
    read_journal_ = *std::move(queries);
  }

  std::vector<std::string> Replay(const std::string& id, int64_t from = 1,
                                  int64_t to = kMaxSequenceNr,
                                  int64_t max = kMaxSequenceNr) {
    testing::ReplayOutcome replay =
        testing::ReplayMessages(*journal_, id, from, to, max);
    EXPECT_OK(replay.status);
    std::vector<std::string> shown;
    for (const PersistentRepr& e : replay.events) shown.push_back(Show(e));
    return shown;
  }

  int64_t Highest(const std::string& id) {
    absl::StatusOr<int64_t> highest =
        testing::ReadHighestSequenceNr(*journal_, id);
    EXPECT_OK(highest);
    return highest.value_or(-1);
  }

  // The snapshot a load finds, as "SEQ TS PAYLOAD"; "none" if none.
  std::string Load(
      const std::string& id,
      SnapshotSelectionCriteria criteria = SnapshotSelectionCriteria::Latest(),
      int64_t to = kMaxSequenceNr) {
    absl::StatusOr<LoadSnapshotResult> loaded =
        testing::LoadSnapshot(*snapshots_, id, criteria, to);
    EXPECT_OK(loaded);
    if (!loaded.ok()) return "failed";
    EXPECT_THAT(loaded->unreadable, IsEmpty());
    if (!loaded->snapshot.has_value()) return "none";
    const SelectedSnapshot& s = *loaded->snapshot;
    EXPECT_EQ(s.metadata.persistence_id, id);
    return absl::StrCat(s.metadata.sequence_nr, " ", s.metadata.timestamp, " ",
                        Show(s.snapshot));
  }

  std::vector<std::string> Ids() {
    auto stream = read_journal_->CurrentPersistenceIds();
    absl::StatusOr<std::vector<std::string>> ids = testing::PullAll(*stream, 3);
    EXPECT_OK(ids);
    std::vector<std::string> escaped;
    for (const std::string& id : ids.value_or(std::vector<std::string>{})) {
      escaped.push_back(absl::CHexEscape(id));
    }
    return escaped;
  }

  std::vector<std::string> Shown(
      absl::StatusOr<std::vector<EventEnvelope>> events) {
    EXPECT_OK(events);
    std::vector<std::string> shown;
    for (const EventEnvelope& e :
         events.value_or(std::vector<EventEnvelope>{})) {
      shown.push_back(Show(e));
    }
    return shown;
  }

  std::vector<std::string> ById(const std::string& id, int64_t from,
                                int64_t to) {
    auto stream = read_journal_->CurrentEventsByPersistenceId(id, from, to);
    return Shown(testing::PullAll(*stream, 4));
  }

  std::vector<std::string> ByTag(const std::string& tag, int64_t offset = 0) {
    auto stream = read_journal_->CurrentEventsByTag(tag, offset);
    return Shown(testing::PullAll(*stream, 4));
  }

  std::optional<TempDir> dir_;
  std::string path_;
  std::unique_ptr<SnapshotStore> snapshots_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<ReadJournal> read_journal_;
};

// What the tests below rely on: part of the store is in table files, part
// in the write-ahead log only (RocksDB reads each its own way). Looked at
// before any open, which would flush the log to a table file.
TEST(Format1StoreFilesTest, TheStoreHasTableFilesAndALog) {
  absl::StatusOr<TempDir> dir = TempDir::Make("format1");
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/store";
  absl::Status copied = testing::CopyFormat1Store(path);
  ASSERT_OK(copied);
  int tables = 0;
  int logs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    const std::string extension = entry.path().extension().string();
    tables += extension == ".sst";
    logs += extension == ".log" && entry.file_size() > 0;
  }
  EXPECT_GT(tables, 0);
  EXPECT_GT(logs, 0);
}

// The layout version, read with RocksDB alone (a read-only open may name
// only the default column family).
std::string LayoutVersion(const std::string& path) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status =
      rocksdb::DB::OpenForReadOnly(rocksdb::Options(), path, &raw);
  EXPECT_OK(status);
  std::unique_ptr<rocksdb::DB> db(raw);
  std::string version;
  if (db != nullptr) {
    status = db->Get(rocksdb::ReadOptions(), "cairn.storage.layout-version",
                     &version);
    EXPECT_OK(status);
  }
  return version;
}

// Event format 2 needs layout version 2, so that a build reading only
// version 1 refuses the store instead of reporting its events corrupt. A
// read-only open changes nothing.
TEST(Format1StoreFilesTest, AnOpenForWritingRaisesTheLayoutVersionTo2) {
  absl::StatusOr<TempDir> dir = TempDir::Make("format1");
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/store";
  absl::Status copied = testing::CopyFormat1Store(path);
  ASSERT_OK(copied);
  EXPECT_EQ(LayoutVersion(path), "1");
  for (RocksDbMode mode : {RocksDbMode::kReadOnly, RocksDbMode::kReadWrite}) {
    RocksDbOptions options;
    options.path = path;
    options.mode = mode;
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
    ASSERT_OK(store);
  }
  EXPECT_EQ(LayoutVersion(path), "2");
}

TEST_P(Format1StoreTest, EveryStreamReplaysAsWritten) {
  // 600 events: across the table files (1..300) and the write-ahead log
  // (301..600), and across the journal's replay chunks.
  EXPECT_THAT(Replay("long"), ElementsAreArray(LongEvents(1, 600)));
  EXPECT_THAT(Replay("tagged"), ElementsAreArray(kTagged));
  EXPECT_THAT(Replay(kOddId), ElementsAreArray(kOdd));
  EXPECT_THAT(Replay("deleted"), ElementsAreArray(kDeleted));
  EXPECT_THAT(Replay("all-deleted"), IsEmpty());
  EXPECT_THAT(Replay("rejected"), ElementsAreArray(kRejected));
  EXPECT_THAT(Replay("wal-only"), ElementsAreArray(kWalOnly));
  EXPECT_THAT(Replay("snap-only"), IsEmpty());
  EXPECT_THAT(Replay("never-written"), IsEmpty());
}

TEST_P(Format1StoreTest, ReplayRangesAndLimits) {
  EXPECT_THAT(Replay("long", 250, 560), ElementsAreArray(LongEvents(250, 560)));
  EXPECT_THAT(Replay("long", 290, 600, 20),
              ElementsAreArray(LongEvents(290, 309)));
  EXPECT_THAT(Replay("long", 600, 600), ElementsAreArray(LongEvents(600, 600)));
  EXPECT_THAT(Replay("deleted", 1, 4), ElementsAre(kDeleted[0]));
  EXPECT_THAT(Replay("tagged", 2, 4, 2), ElementsAre(kTagged[1], kTagged[2]));
}

TEST_P(Format1StoreTest, HighestSequenceNumbersCountDeletedAndRejected) {
  EXPECT_EQ(Highest("long"), 600);
  EXPECT_EQ(Highest("tagged"), 5);
  EXPECT_EQ(Highest(kOddId), 3);
  EXPECT_EQ(Highest("deleted"), 5);
  EXPECT_EQ(Highest("all-deleted"), 3);
  EXPECT_EQ(Highest("rejected"), 3);
  EXPECT_EQ(Highest("wal-only"), 2);
  EXPECT_EQ(Highest("snap-only"), 0);
  EXPECT_EQ(Highest("never-written"), 0);
}

TEST_P(Format1StoreTest, SnapshotsLoad) {
  EXPECT_EQ(Load("long"), "450 1700001000450 TestEvent{long-state,450,[a,b]}");
  EXPECT_EQ(Load("long", {.max_sequence_nr = 449}),
            "300 1700001000300 Amount{300}");
  EXPECT_EQ(Load("long", SnapshotSelectionCriteria::Latest(), 400),
            "300 1700001000300 Amount{300}");
  EXPECT_EQ(Load("long", {.max_timestamp = 1700001000299}), "none");
  EXPECT_EQ(Load("tagged"), "4 1700001100004 Amount{4}");
  EXPECT_EQ(Load("tagged", {.max_sequence_nr = 3}),
            "2 1700001100002 \"tagged-2\"");
  EXPECT_EQ(Load(kOddId), "2 1700001200002 \"odd-state\\xff\"");
  EXPECT_EQ(Load("snap-only"), "7 1700001700007 \"s-7\"");
  EXPECT_EQ(Load("deleted"), "none");
}

TEST_P(Format1StoreTest, PersistenceIdsInTheOrderTheyWereCreated) {
  EXPECT_THAT(
      Ids(), ElementsAre("long", "tagged", "odd\\x00id\\\"\\n\\xc3(", "deleted",
                         "all-deleted", "rejected", "wal-only"));
}

TEST_P(Format1StoreTest, EventsByPersistenceId) {
  EXPECT_THAT(
      ById("long", 299, 302),
      ElementsAre(
          "@299 long 299 \"long-299\" adapter= ts=1700000000299 tags=[]",
          "@300 long 300 Amount{3000} adapter= ts=1700000000300 "
          "tags=[fifty,hundred]",
          "@301 long 301 \"long-301\" adapter= ts=1700000000301 tags=[]",
          "@302 long 302 Amount{3020} adapter= ts=1700000000302 tags=[]"));
  EXPECT_EQ(ById("long", 1, kMaxSequenceNr).size(), 600u);
  EXPECT_THAT(
      ById("tagged", 1, kMaxSequenceNr),
      ElementsAre("@1 tagged 1 TestEvent{t-1,1,[x]} adapter=tagged-v1 "
                  "ts=1700000101000 tags=[green]",
                  "@2 tagged 2 \"t-2\" adapter=tagged-v1 ts=1700000102000 "
                  "tags=[green,blue,red]",
                  "@3 tagged 3 Amount{3} adapter= ts=1700000103000 tags=[]",
                  "@4 tagged 4 TestEvent{t-4,-4,[]} adapter=tagged-v2 "
                  "ts=1700000104000 tags=[blue]",
                  "@5 tagged 5 \"t-5\" adapter=tagged-v2 ts=1700000105000 "
                  "tags=[green,blue]"));
  EXPECT_THAT(
      ById(kOddId, 2, 2),
      ElementsAre("@2 odd\\x00id\\\"\\n\\xc3( 2 \"a\\x00\\x62\" adapter= "
                  "ts=1700000202000 tags=[]"));
  EXPECT_THAT(
      ById("deleted", 1, kMaxSequenceNr),
      ElementsAre("@4 deleted 4 Amount{4} adapter= ts=1700000304000 tags=[]",
                  "@5 deleted 5 Amount{5} adapter= ts=1700000305000 tags=[]"));
  EXPECT_THAT(ById("all-deleted", 1, kMaxSequenceNr), IsEmpty());
}

TEST_P(Format1StoreTest, EventsByTagWithTheirOffsets) {
  EXPECT_THAT(
      ByTag("green"),
      ElementsAre("@7 tagged 1 TestEvent{t-1,1,[x]} adapter=tagged-v1 "
                  "ts=1700000101000 tags=[green]",
                  "@8 tagged 2 \"t-2\" adapter=tagged-v1 ts=1700000102000 "
                  "tags=[green,blue,red]",
                  "@10 odd\\x00id\\\"\\n\\xc3( 1 \"caf\\xc3\\xa9 \\xff\\x01\" "
                  "adapter= ts=1700000201000 tags=[green]",
                  "@18 tagged 5 \"t-5\" adapter=tagged-v2 ts=1700000105000 "
                  "tags=[green,blue]"));
  EXPECT_THAT(
      ByTag("green", 8),
      ElementsAre("@10 odd\\x00id\\\"\\n\\xc3( 1 \"caf\\xc3\\xa9 \\xff\\x01\" "
                  "adapter= ts=1700000201000 tags=[green]",
                  "@18 tagged 5 \"t-5\" adapter=tagged-v2 ts=1700000105000 "
                  "tags=[green,blue]"));
  EXPECT_THAT(
      ByTag("red"),
      ElementsAre("@8 tagged 2 \"t-2\" adapter=tagged-v1 ts=1700000102000 "
                  "tags=[green,blue,red]",
                  "@19 wal-only 2 \"w-2\" adapter= ts=1700000602000 "
                  "tags=[red]"));
  EXPECT_THAT(ByTag("caf\xc3\xa9"),
              ElementsAre("@11 odd\\x00id\\\"\\n\\xc3( 3 Amount{-1} adapter= "
                          "ts=1700000203000 tags=[caf\\xc3\\xa9]"));
  EXPECT_THAT(Heads(ByTag("blue")),
              ElementsAre("@8 tagged 2", "@9 tagged 4", "@18 tagged 5"));

  // "long": 50, 100, ..., 600 at offsets 1..6 (written first), then 12..17
  // (after the others' 7..11 and before 18, 19).
  std::vector<std::string> fifty;
  for (int64_t n = 50, offset = 1; n <= 600; n += 50, ++offset) {
    if (offset == 7) offset = 12;
    fifty.push_back(absl::StrCat("@", offset, " long ", n, " Amount{", 10 * n,
                                 "} adapter= ts=", 1700000000000 + n, " tags=",
                                 n % 100 == 0 ? "[fifty,hundred]" : "[fifty]"));
  }
  EXPECT_THAT(ByTag("fifty"), ElementsAreArray(fifty));
  EXPECT_THAT(Heads(ByTag("hundred")),
              ElementsAre("@2 long 100", "@4 long 200", "@6 long 300",
                          "@13 long 400", "@15 long 500", "@17 long 600"));
  EXPECT_THAT(ByTag("never-used"), IsEmpty());
}

// Read-write only: new events follow the old ones in their streams, the
// tag offsets go on after the old ones, and both read back together, also
// after the store is reopened.
TEST_P(Format1StoreTest, NewEventsFollowTheOldOnes) {
  if (GetParam() != RocksDbMode::kReadWrite) {
    testing::WriteOutcome refused = testing::WriteMessages(
        *journal_,
        {testing::Single("long", 601,
                         serialization::Payload::Of(std::string("x")))});
    EXPECT_EQ(refused.batch.code(), absl::StatusCode::kFailedPrecondition);
    return;
  }
  PersistentRepr appended;
  appended.persistence_id = "long";
  appended.sequence_nr = 601;
  appended.payload = serialization::Payload::Of([] {
    TestEventT event;
    event.name = "new";
    event.value = 601;
    return event;
  }());
  appended.writer_uuid = "writer-new";
  appended.timestamp = 1800000000000;
  appended.tags = {"fifty", "new"};
  appended.adapter_manifest = "new-v1";
  std::vector<AtomicWrite> writes(1);
  writes[0].events.push_back(appended);
  writes.push_back(
      testing::Single("deleted", 6, serialization::Payload::Of(Amount{6})));
  writes.push_back(testing::Single(
      "fresh", 1, serialization::Payload::Of(std::string("fresh-1"))));
  testing::WriteOutcome written =
      testing::WriteMessages(*journal_, std::move(writes));
  ASSERT_OK(written.batch);
  for (const absl::Status& s : written.per_write) ASSERT_OK(s);

  const std::string kNew =
      "long 601 TestEvent{new,601,[]} manifest=cairn.test.TestEvent "
      "adapter=new-v1 writer=writer-new ts=1800000000000 tags=[fifty,new]";
  const std::string kDeleted6 =
      "deleted 6 Amount{6} manifest=cairn.test.Amount adapter= "
      "writer=writer-1 ts=6000 tags=[]";
  for (RocksDbMode mode : {RocksDbMode::kReadWrite, RocksDbMode::kReadOnly}) {
    SCOPED_TRACE(mode == RocksDbMode::kReadWrite ? "before a reopen"
                                                 : "reopened read-only");
    if (mode == RocksDbMode::kReadOnly) Open(mode);
    std::vector<std::string> long_stream = LongEvents(1, 600);
    long_stream.push_back(kNew);
    EXPECT_THAT(Replay("long"), ElementsAreArray(long_stream));
    EXPECT_THAT(Replay("deleted"),
                ElementsAre(kDeleted[0], kDeleted[1], kDeleted6));
    EXPECT_EQ(Highest("long"), 601);
    EXPECT_EQ(Highest("deleted"), 6);
    std::vector<std::string> fifty = ByTag("fifty", 17);
    EXPECT_THAT(fifty,
                ElementsAre("@20 long 601 TestEvent{new,601,[]} adapter=new-v1 "
                            "ts=1800000000000 tags=[fifty,new]"));
    EXPECT_EQ(ByTag("fifty").size(), 13u);
    EXPECT_THAT(Ids(), ElementsAre("long", "tagged", "odd\\x00id\\\"\\n\\xc3(",
                                   "deleted", "all-deleted", "rejected",
                                   "wal-only", "fresh"));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Format1StoreTest,
                         ::testing::Values(RocksDbMode::kReadWrite,
                                           RocksDbMode::kReadOnly),
                         [](const auto& info) {
                           return info.param == RocksDbMode::kReadWrite
                                      ? "ReadWrite"
                                      : "ReadOnly";
                         });

}  // namespace
}  // namespace cairn::persistence
