// Damaged stores: records overwritten through RocksDB directly (the column
// families by name, as a bad tool or a bug elsewhere would), and damaged
// table files. Every read of a damaged record must fail with a status that
// names the persistence id and sequence number, never crash, and leave the
// undamaged records readable.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/internal/event_codec.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/stored_event_generated.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/store_families.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "serialization/serialization.h"
#include "serialization/serializer.h"

namespace cairn::persistence {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::LoadSnapshot;
using testing::ReadHighestSequenceNr;
using testing::ReplayMessages;
using testing::ReplayOutcome;
using testing::ReplayPageOf;
using testing::ReplayPageOutcome;
using testing::SaveSnapshot;
using testing::Single;
using testing::TempDir;
using testing::Texts;
using testing::WriteMessages;
using testing::WriteOutcome;

constexpr int64_t kMax = kMaxSequenceNr;

// The store's RocksDB database opened directly, by column family name.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    std::vector<rocksdb::ColumnFamilyDescriptor> families =
        testing::StoreColumnFamilies();
    rocksdb::DB* db = nullptr;
    status_ =
        rocksdb::DB::Open(rocksdb::DBOptions(), path, families, &handles_, &db);
    db_.reset(db);
  }
  ~RawDb() {
    for (rocksdb::ColumnFamilyHandle* handle : handles_) {
      db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
    }
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  const rocksdb::Status& status() const { return status_; }
  rocksdb::ColumnFamilyHandle* events() { return handles_[1]; }
  rocksdb::ColumnFamilyHandle* snapshots() { return handles_[2]; }
  rocksdb::ColumnFamilyHandle* metadata() { return handles_[3]; }
  rocksdb::ColumnFamilyHandle* names() { return handles_[6]; }

  std::string Get(rocksdb::ColumnFamilyHandle* family, const std::string& key) {
    std::string value;
    rocksdb::Status status =
        db_->Get(rocksdb::ReadOptions(), family, key, &value);
    EXPECT_OK(status);
    return value;
  }
  void Put(rocksdb::ColumnFamilyHandle* family, const std::string& key,
           const std::string& value) {
    rocksdb::Status status =
        db_->Put(rocksdb::WriteOptions(), family, key, value);
    EXPECT_OK(status);
  }
  void DeleteRange(rocksdb::ColumnFamilyHandle* family, const std::string& from,
                   const std::string& to) {
    rocksdb::Status status =
        db_->DeleteRange(rocksdb::WriteOptions(), family, from, to);
    EXPECT_OK(status);
  }
  // Moves everything into table files, so that damage to the files reaches
  // the records.
  void Flush() {
    for (rocksdb::ColumnFamilyHandle* handle : handles_) {
      rocksdb::Status status = db_->Flush(rocksdb::FlushOptions(), handle);
      EXPECT_OK(status);
    }
  }

 private:
  rocksdb::Status status_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

// A serializer the registry of the test that writes has, and that of the
// test that reads may lack.
struct Custom {
  std::string text;
};
class CustomSerializer final : public serialization::Serializer {
 public:
  static constexpr int32_t kId = 4242;
  int32_t identifier() const override { return kId; }
  absl::StatusOr<std::string> ToBinary(
      const serialization::Payload& payload) const override {
    return payload.As<Custom>()->text;
  }
  absl::StatusOr<serialization::Payload> FromBinary(
      std::string_view bytes, std::string_view) const override {
    return serialization::Payload::Of(Custom{std::string(bytes)});
  }
};

class RocksDbCorruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    options_.path = dir_->path() + "/store";
    // Events "p-1" 1..5 and "p-2" 1..2, snapshots of "p-1" at 2 and 4.
    ASSERT_NO_FATAL_FAILURE(Open());
    Write("p-1", 1, 5);
    Write("p-2", 1, 2);
    ASSERT_OK(SaveSnapshot(*snapshots_, {"p-1", 2, 20},
                           serialization::Payload::Of(std::string("snap-2"))));
    ASSERT_OK(SaveSnapshot(*snapshots_, {"p-1", 4, 40},
                           serialization::Payload::Of(std::string("snap-4"))));
    ASSERT_OK(testing::DeleteMessagesTo(*journal_, "p-2", 1));
    Close();
  }

  void Open() {
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
    ASSERT_OK(store);
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(serialization_);
    ASSERT_OK(journal);
    journal_ = *std::move(journal);
    snapshots_ = store->NewSnapshotStore(serialization_);
  }

  void Close() {
    journal_.reset();
    snapshots_.reset();
  }

  void Write(const std::string& pid, int64_t from, int64_t to) {
    std::vector<AtomicWrite> writes;
    for (int64_t n = from; n <= to; ++n) {
      writes.push_back(Single(
          pid, n, serialization::Payload::Of(absl::StrCat(pid, "-", n))));
    }
    WriteOutcome outcome = WriteMessages(*journal_, std::move(writes));
    ASSERT_OK(outcome.batch);
  }

  // Lets `damage` change the closed store through RocksDB, then opens it.
  template <typename Damage>
  void DamageAndOpen(Damage damage) {
    {
      RawDb raw(options_.path);
      ASSERT_OK(raw.status());
      damage(raw);
    }
    ASSERT_NO_FATAL_FAILURE(Open());
  }

  // A replay of "p-1" from 1 fails at `sequence_nr` with `code`, naming
  // it, after delivering the events before it.
  void ExpectReplayFailsAt(int64_t sequence_nr, absl::StatusCode code) {
    ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 1, kMax, kMax);
    EXPECT_EQ(replay.status.code(), code) << replay.status;
    EXPECT_THAT(std::string(replay.status.message()),
                HasSubstr(absl::StrCat("persistence id 'p-1', sequence nr ",
                                       sequence_nr)));
    std::vector<std::string> before;
    for (int64_t n = 1; n < sequence_nr; ++n) {
      before.push_back(absl::StrCat("p-1-", n));
    }
    EXPECT_EQ(Texts(replay.events), before);
    // A page fails alike, where the journal reads or where it is read.
    ReplayPageOutcome page = ReplayPageOf(*journal_, "p-1", 1, kMax, kMax);
    const absl::Status failed = page.status.ok() ? page.read : page.status;
    EXPECT_EQ(failed, replay.status);
    EXPECT_EQ(Texts(page.events), before);
    // The other stream is untouched.
    ReplayOutcome other = ReplayMessages(*journal_, "p-2", 1, kMax, kMax);
    EXPECT_OK(other.status);
    EXPECT_THAT(Texts(other.events), ElementsAre("p-2-2"));
  }

  std::optional<TempDir> dir_;
  RocksDbOptions options_;
  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
  std::unique_ptr<SnapshotStore> snapshots_;
  std::unique_ptr<Journal> journal_;
};

const std::string kEvent3 = rocksdb_internal::RecordKey("p-1", 3);

TEST_F(RocksDbCorruptionTest, AnEventOfGarbageFailsTheReplayAtIt) {
  DamageAndOpen([](RawDb& raw) { raw.Put(raw.events(), kEvent3, "garbage"); });
  ExpectReplayFailsAt(3, absl::StatusCode::kDataLoss);
  // Replays that stop before it, or start after it, work.
  ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 1, 2, kMax);
  EXPECT_OK(replay.status);
  replay = ReplayMessages(*journal_, "p-1", 4, kMax, kMax);
  EXPECT_OK(replay.status);
  EXPECT_THAT(Texts(replay.events), ElementsAre("p-1-4", "p-1-5"));
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, "p-1");
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
}

TEST_F(RocksDbCorruptionTest, ATruncatedEventFailsTheReplayAtIt) {
  DamageAndOpen([](RawDb& raw) {
    std::string value = raw.Get(raw.events(), kEvent3);
    raw.Put(raw.events(), kEvent3, value.substr(0, value.size() / 2));
  });
  ExpectReplayFailsAt(3, absl::StatusCode::kDataLoss);
}

TEST_F(RocksDbCorruptionTest, AnEventWithDamagedHeaderBytesFailsTheReplay) {
  DamageAndOpen([](RawDb& raw) {
    std::string value = raw.Get(raw.events(), kEvent3);
    // The root offset and the file identifier.
    for (size_t i = 0; i < 8 && i < value.size(); ++i) value[i] ^= 0x5a;
    raw.Put(raw.events(), kEvent3, value);
  });
  ExpectReplayFailsAt(3, absl::StatusCode::kDataLoss);
}

TEST_F(RocksDbCorruptionTest, AnEventFillingItsValueWithZerosFailsTheReplay) {
  DamageAndOpen([](RawDb& raw) {
    std::string value = raw.Get(raw.events(), kEvent3);
    raw.Put(raw.events(), kEvent3, std::string(value.size(), '\0'));
  });
  ExpectReplayFailsAt(3, absl::StatusCode::kDataLoss);
}

TEST_F(RocksDbCorruptionTest, AnEventUnderAnotherKeyFailsTheReplayAtIt) {
  DamageAndOpen([](RawDb& raw) {
    raw.Put(raw.events(), kEvent3,
            raw.Get(raw.events(), rocksdb_internal::RecordKey("p-1", 4)));
  });
  ExpectReplayFailsAt(3, absl::StatusCode::kDataLoss);
  ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 3, 3, 1);
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("another event's record"));
}

// A format newer than this build's (the first byte says which).
TEST_F(RocksDbCorruptionTest, AnEventInAnUnknownFormatFailsTheReplayAtIt) {
  DamageAndOpen([](RawDb& raw) {
    std::string value = raw.Get(raw.events(), kEvent3);
    value[0] = 3;
    raw.Put(raw.events(), kEvent3, value);
  });
  ExpectReplayFailsAt(3, absl::StatusCode::kFailedPrecondition);
  ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 3, 3, 1);
  EXPECT_THAT(std::string(replay.status.message()), HasSubstr("newer"));
}

// A format 2 event whose manifest number the store does not hold.
TEST_F(RocksDbCorruptionTest, AnEventWithoutItsManifestFailsTheReplayAtIt) {
  ASSERT_NO_FATAL_FAILURE(Open());
  WriteOutcome written = WriteMessages(
      *journal_,
      {Single("p-m", 1, serialization::Payload::Of(testing::Amount{7}))});
  ASSERT_OK(written.batch);
  Close();
  DamageAndOpen([](RawDb& raw) { raw.DeleteRange(raw.names(), "", "\xff"); });
  ReplayOutcome replay = ReplayMessages(*journal_, "p-m", 1, kMax, kMax);
  EXPECT_EQ(replay.status.code(), absl::StatusCode::kDataLoss) << replay.status;
  EXPECT_THAT(std::string(replay.status.message()),
              AllOf(HasSubstr("persistence id 'p-m', sequence nr 1"),
                    HasSubstr("is not in the store")));
  EXPECT_THAT(replay.events, IsEmpty());
}

// Format 1 (a StoredEvent FlatBuffer) with a version above this build's.
TEST_F(RocksDbCorruptionTest, AnEventFromANewerFormatFailsTheReplayAtIt) {
  DamageAndOpen([](RawDb& raw) {
    flatbuffers::FlatBufferBuilder builder;
    namespace fb = ::cairn::persistence::storage;
    builder.Finish(
        fb::CreateStoredEvent(
            builder, /*format_version=*/2, builder.CreateString("p-1"), 3,
            builder.CreateString("w"), 0, serialization::kStringSerializerId,
            builder.CreateString(""), builder.CreateVector<uint8_t>({'x'})),
        fb::StoredEventIdentifier());
    raw.Put(
        raw.events(), kEvent3,
        std::string(reinterpret_cast<const char*>(builder.GetBufferPointer()),
                    builder.GetSize()));
  });
  ExpectReplayFailsAt(3, absl::StatusCode::kFailedPrecondition);
  ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 3, 3, 1);
  EXPECT_THAT(std::string(replay.status.message()), HasSubstr("newer"));
}

// A key inside a stream's range that is not a record key.
TEST_F(RocksDbCorruptionTest, AMalformedKeyFailsTheReplay) {
  DamageAndOpen([](RawDb& raw) {
    raw.Put(raw.events(), rocksdb_internal::RecordKey("p-1", 3) + "x", "junk");
  });
  ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 1, kMax, kMax);
  EXPECT_EQ(replay.status.code(), absl::StatusCode::kDataLoss) << replay.status;
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("persistence id 'p-1'"));
  EXPECT_THAT(Texts(replay.events), ElementsAre("p-1-1", "p-1-2", "p-1-3"));
}

TEST_F(RocksDbCorruptionTest, AnEventOfAnUnknownSerializerFailsWithNotFound) {
  // Written by a registry with a serializer the reading one lacks.
  {
    auto writer_registry =
        std::make_shared<serialization::SerializationRegistry>();
    ASSERT_OK(
        writer_registry->AddSerializer(std::make_shared<CustomSerializer>()));
    ASSERT_OK(
        writer_registry->Bind<Custom>(CustomSerializer::kId, "custom.v1"));
    absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options_);
    ASSERT_OK(store);
    absl::StatusOr<std::unique_ptr<Journal>> journal =
        store->NewJournal(writer_registry);
    ASSERT_OK(journal);
    WriteOutcome outcome = WriteMessages(
        **journal,
        {Single("p-1", 6, serialization::Payload::Of(Custom{"custom"}))});
    ASSERT_OK(outcome.batch);
    ASSERT_OK(outcome.per_write[0]);
    // It reads back with that registry.
    ReplayOutcome replay = ReplayMessages(**journal, "p-1", 6, 6, 1);
    ASSERT_OK(replay.status);
    ASSERT_EQ(replay.events.size(), 1u);
    EXPECT_EQ(replay.events[0].manifest, "custom.v1");
  }
  ASSERT_NO_FATAL_FAILURE(Open());
  ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 1, kMax, kMax);
  EXPECT_EQ(replay.status.code(), absl::StatusCode::kNotFound) << replay.status;
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("persistence id 'p-1', sequence nr 6"));
  EXPECT_THAT(std::string(replay.status.message()), HasSubstr("4242"));
  EXPECT_EQ(replay.events.size(), 5u);
  // A page carries it serialized; reading the page fails alike.
  ReplayPageOutcome page = ReplayPageOf(*journal_, "p-1", 1, kMax, kMax);
  ASSERT_OK(page.status);
  EXPECT_EQ(page.read, replay.status);
  EXPECT_EQ(page.events.size(), 5u);
}

// A damaged snapshot record is passed over for the next older one, and
// reported (snapshot_store.h); the recovery replays the events it covered.
TEST_F(RocksDbCorruptionTest, ADamagedSnapshotFallsBackToTheOlderOne) {
  DamageAndOpen([](RawDb& raw) {
    const std::string key = rocksdb_internal::RecordKey("p-1", 4);
    std::string value = raw.Get(raw.snapshots(), key);
    raw.Put(raw.snapshots(), key, value.substr(0, value.size() - 9));
  });
  absl::StatusOr<LoadSnapshotResult> result = LoadSnapshot(
      *snapshots_, "p-1", SnapshotSelectionCriteria::Latest(), kMax);
  ASSERT_OK(result);
  ASSERT_TRUE(result->snapshot.has_value());
  EXPECT_EQ(result->snapshot->metadata.sequence_nr, 2);
  ASSERT_EQ(result->unreadable.size(), 1u);
  EXPECT_EQ(result->unreadable[0].code(), absl::StatusCode::kDataLoss)
      << result->unreadable[0];
  EXPECT_THAT(std::string(result->unreadable[0].message()),
              HasSubstr("persistence id 'p-1', sequence nr 4"));
  // Retention can delete it.
  ASSERT_OK(testing::DeleteSnapshots(*snapshots_, "p-1",
                                     SnapshotSelectionCriteria{4, kMax, 3, 0}));
  result = LoadSnapshot(*snapshots_, "p-1", SnapshotSelectionCriteria::Latest(),
                        kMax);
  ASSERT_OK(result);
  EXPECT_TRUE(result->unreadable.empty());
  ASSERT_TRUE(result->snapshot.has_value());
  EXPECT_EQ(result->snapshot->metadata.sequence_nr, 2);
}

TEST_F(RocksDbCorruptionTest, ASnapshotUnderAnotherKeyIsPassedOver) {
  DamageAndOpen([](RawDb& raw) {
    raw.Put(raw.snapshots(), rocksdb_internal::RecordKey("p-1", 4),
            raw.Get(raw.snapshots(), rocksdb_internal::RecordKey("p-1", 2)));
  });
  absl::StatusOr<LoadSnapshotResult> result = LoadSnapshot(
      *snapshots_, "p-1", SnapshotSelectionCriteria::Latest(), kMax);
  ASSERT_OK(result);
  ASSERT_TRUE(result->snapshot.has_value());
  EXPECT_EQ(result->snapshot->metadata.sequence_nr, 2);
  ASSERT_EQ(result->unreadable.size(), 1u);
  EXPECT_EQ(result->unreadable[0].code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(result->unreadable[0].message()),
              HasSubstr("persistence id 'p-1', sequence nr 4"));
}

TEST_F(RocksDbCorruptionTest, DamagedMetadataFailsTheHighestSequenceNrRead) {
  DamageAndOpen([](RawDb& raw) {
    raw.Put(raw.metadata(), rocksdb_internal::StreamPrefix("p-2"),
            "not metadata");
  });
  absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(*journal_, "p-2");
  EXPECT_EQ(highest.status().code(), absl::StatusCode::kDataLoss)
      << highest.status();
  EXPECT_THAT(std::string(highest.status().message()),
              HasSubstr("persistence id 'p-2'"));
  // A delete needs it too, and fails rather than guess.
  EXPECT_EQ(testing::DeleteMessagesTo(*journal_, "p-2", kMax).code(),
            absl::StatusCode::kDataLoss);
  // Other streams are unaffected.
  highest = ReadHighestSequenceNr(*journal_, "p-1");
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 5);
}

// Flips a bit near every occurrence of `identifier` (a FlatBuffer's file
// identifier, or a payload) in the store's table files; returns how many.
int DamageTableFiles(const std::string& path, const std::string& identifier) {
  int damaged = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (entry.path().extension() != ".sst") continue;
    std::fstream file(entry.path(),
                      std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)),
                      std::istreambuf_iterator<char>());
    for (size_t at = bytes.find(identifier); at != std::string::npos;
         at = bytes.find(identifier, at + 1)) {
      bytes[at + 8] ^= 0x01;
      ++damaged;
    }
    file.seekp(0);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  return damaged;
}

// Damage below RocksDB's records: bytes of a table file flipped on disk.
// RocksDB's block checksums catch it; the replay fails with DataLoss naming
// the stream and where the replay stood, rather than deliver bad data.
TEST_F(RocksDbCorruptionTest, ADamagedTableFileFailsTheReplay) {
  {
    RawDb raw(options_.path);
    ASSERT_OK(raw.status());
    raw.Flush();
  }
  // The events column family's table files hold the events, whose payloads
  // are their texts; damage every block that holds the first.
  const int damaged = DamageTableFiles(options_.path, "p-1-1");
  ASSERT_GT(damaged, 0) << "no event found in a table file";
  ASSERT_NO_FATAL_FAILURE(Open());
  ReplayOutcome replay = ReplayMessages(*journal_, "p-1", 1, kMax, kMax);
  EXPECT_EQ(replay.status.code(), absl::StatusCode::kDataLoss) << replay.status;
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("persistence id 'p-1'"));
  EXPECT_THAT(std::string(replay.status.message()), HasSubstr("sequence nr 1"));
  EXPECT_THAT(replay.events, IsEmpty());
}

TEST_F(RocksDbCorruptionTest, ADamagedSnapshotTableFileFailsTheLoad) {
  {
    RawDb raw(options_.path);
    ASSERT_OK(raw.status());
    raw.Flush();
  }
  ASSERT_GT(DamageTableFiles(options_.path, "CSNP"), 0);
  ASSERT_NO_FATAL_FAILURE(Open());
  absl::StatusOr<LoadSnapshotResult> result = LoadSnapshot(
      *snapshots_, "p-1", SnapshotSelectionCriteria::Latest(), kMax);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDataLoss)
      << result.status();
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("persistence id 'p-1'"));
}

}  // namespace
}  // namespace cairn::persistence
