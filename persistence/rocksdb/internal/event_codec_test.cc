// The stored event formats (event_codec.h): format 2 round-trips every
// field in a few bytes around the payload and refuses any damage; format 1
// (a StoredEvent FlatBuffer, what stores written before format 2 hold)
// still reads.

#include "persistence/rocksdb/internal/event_codec.h"

#include <memory>
#include <string>
#include <vector>

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/internal/db.h"
#include "persistence/rocksdb/internal/key_codec.h"
#include "persistence/rocksdb/internal/stored_event_generated.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

using testing::TempDir;

class EventCodecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<TempDir> dir = TempDir::Make("cairn-event-codec");
    ASSERT_OK(dir);
    dir_ = std::make_unique<TempDir>(*std::move(dir));
    RocksDbOptions options;
    options.path = dir_->path();
    options.fsync = false;
    absl::StatusOr<std::shared_ptr<Db>> db = Db::Open(options);
    ASSERT_OK(db);
    db_ = *std::move(db);
  }

  // The number of `manifest`, its entry committed.
  uint64_t Manifest(const std::string& manifest) {
    const ManifestRef ref = db_->manifests().NumberOf(manifest);
    if (ref.unstored) {
      absl::Status written =
          db_->Write([&](const Db::View& view, rocksdb::WriteBatch& batch) {
            return view.manifests->AddEntry(view.names, ref.number, batch);
          });
      EXPECT_OK(written);
      db_->manifests().MarkStored({ref.number});
    }
    return ref.number;
  }

  absl::StatusOr<EventView> Decode(const std::string& id, int64_t nr,
                                   const std::string& value) {
    absl::StatusOr<EventView> decoded;
    absl::Status read = db_->Read([&](const Db::View& view) {
      decoded = DecodeEvent(view, id, nr, value);
      return absl::OkStatus();
    });
    EXPECT_OK(read);
    return decoded;
  }

  static PersistentRepr Event() {
    PersistentRepr event;
    event.persistence_id = "account-7";
    event.sequence_nr = 42;
    event.writer_uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
    event.timestamp = 1'764'000'000'000;
    return event;
  }
  static serialization::SerializedPayload Payload(std::string bytes) {
    serialization::SerializedPayload payload;
    payload.serializer_id = 3;
    payload.manifest = "bank.Deposited.v1";
    payload.bytes = std::move(bytes);
    return payload;
  }

  std::unique_ptr<TempDir> dir_;
  std::shared_ptr<Db> db_;
};

TEST_F(EventCodecTest, RoundTripsEveryField) {
  PersistentRepr event = Event();
  event.tags = {"bank", "deposits"};
  event.adapter_manifest = "split-deposit";
  const serialization::SerializedPayload payload =
      Payload(std::string("\0\x01payload", 9));
  const std::string value =
      EncodeEvent(event, payload, Manifest(payload.manifest));
  absl::StatusOr<EventView> got = Decode("account-7", 42, value);
  ASSERT_OK(got);
  EXPECT_EQ(got->format, 2);
  EXPECT_EQ(got->WriterUuid(), event.writer_uuid);
  EXPECT_EQ(got->timestamp, event.timestamp);
  EXPECT_EQ(got->serializer_id, 3);
  EXPECT_EQ(got->manifest, "bank.Deposited.v1");
  EXPECT_EQ(got->adapter_manifest, "split-deposit");
  EXPECT_EQ(got->payload, payload.bytes);
  EXPECT_EQ(got->tags, (std::vector<std::string_view>{"bank", "deposits"}));
}

TEST_F(EventCodecTest, KeepsWritersThatAreNotLowercaseUuidsAsWritten) {
  for (const std::string writer :
       {"", "writer-1", "0F8FAD5B-D9CB-469F-A165-70867728950E",
        "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5b_d9cb-469f-a165"}) {
    PersistentRepr event = Event();
    event.writer_uuid = writer;
    event.timestamp = -5;  // any int64 goes
    serialization::SerializedPayload payload = Payload("x");
    payload.serializer_id = -1;
    payload.manifest = "";
    // The view points into the record: it is kept.
    const std::string record = EncodeEvent(event, payload, 0);
    absl::StatusOr<EventView> got = Decode("account-7", 42, record);
    ASSERT_OK(got);
    EXPECT_EQ(got->WriterUuid(), writer);
    EXPECT_EQ(got->timestamp, -5);
    EXPECT_EQ(got->serializer_id, -1);
    EXPECT_EQ(got->manifest, "");
    EXPECT_TRUE(got->tags.empty());
  }
}

// The journal encodes an event's key and value into one buffer, the key
// first: the value part is the same as EncodeEvent's, and the key is
// RecordKey's.
TEST_F(EventCodecTest, AppendsAfterAKeyWhatEncodeEventReturns) {
  PersistentRepr event = Event();
  event.tags = {"blue", "green"};
  const serialization::SerializedPayload payload = Payload("abc");
  std::string bytes;
  AppendRecordKey(event.persistence_id, event.sequence_nr, bytes);
  const size_t key_size = bytes.size();
  AppendEncodedEvent(event, payload, 3, bytes);
  EXPECT_EQ(bytes.substr(0, key_size),
            RecordKey(event.persistence_id, event.sequence_nr));
  EXPECT_EQ(bytes.substr(key_size), EncodeEvent(event, payload, 3));
}

// Issue 19's budget: at most 32 bytes beyond the key and the payload for
// an event as a persistent actor writes it (a writer UUID, a timestamp, a
// serializer and a manifest; no tags).
TEST_F(EventCodecTest, AnEightByteEventTakesAtMost32BytesMore) {
  const serialization::SerializedPayload payload = Payload(std::string(8, 'e'));
  const std::string value =
      EncodeEvent(Event(), payload, Manifest(payload.manifest));
  EXPECT_LE(value.size() - payload.bytes.size(), 32u) << value.size();
}

TEST_F(EventCodecTest, AnyDamagedByteFailsWithDataLoss) {
  PersistentRepr event = Event();
  event.tags = {"t"};
  const serialization::SerializedPayload payload = Payload("payload");
  const std::string value =
      EncodeEvent(event, payload, Manifest(payload.manifest));
  for (size_t i = 0; i < value.size(); ++i) {
    std::string damaged = value;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    absl::StatusOr<EventView> got = Decode("account-7", 42, damaged);
    ASSERT_FALSE(got.ok()) << "byte " << i;
    EXPECT_EQ(got.status().code(), i == 0
                                       ? absl::StatusCode::kFailedPrecondition
                                       : absl::StatusCode::kDataLoss)
        << "byte " << i << ": " << got.status();
    EXPECT_NE(got.status().message().find(
                  "persistence id 'account-7', sequence nr 42"),
              std::string::npos)
        << got.status();
  }
  for (size_t n = 0; n < value.size(); ++n) {
    absl::StatusOr<EventView> got = Decode("account-7", 42, value.substr(0, n));
    EXPECT_FALSE(got.ok()) << "the first " << n << " bytes";
  }
}

TEST_F(EventCodecTest, ARecordUnderAnotherEventsKeyFailsWithDataLoss) {
  const std::string value = EncodeEvent(Event(), Payload("x"), 0);
  EXPECT_EQ(Decode("account-7", 43, value).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(Decode("account-8", 42, value).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST_F(EventCodecTest, AManifestNumberTheStoreLacksFailsWithDataLoss) {
  absl::StatusOr<EventView> got =
      Decode("account-7", 42, EncodeEvent(Event(), Payload("x"), 99));
  EXPECT_EQ(got.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(got.status().message().find("manifest number 99"),
            std::string::npos)
      << got.status();
}

// What stores written before format 2 hold.
TEST_F(EventCodecTest, ReadsFormatOne) {
  namespace fb = ::cairn::persistence::storage;
  flatbuffers::FlatBufferBuilder builder;
  const std::vector<std::string> tags = {"a", "b"};
  builder.Finish(
      fb::CreateStoredEvent(
          builder, /*format_version=*/1, builder.CreateString("account-7"), 42,
          builder.CreateString("writer-1"), 1234, 5,
          builder.CreateString("bank.Deposited.v1"),
          builder.CreateVector<uint8_t>({'p', 'a', 'y'}),
          builder.CreateVectorOfStrings(tags), builder.CreateString("adapted")),
      fb::StoredEventIdentifier());
  const std::string value(
      reinterpret_cast<const char*>(builder.GetBufferPointer()),
      builder.GetSize());
  absl::StatusOr<EventView> got = Decode("account-7", 42, value);
  ASSERT_OK(got);
  EXPECT_EQ(got->format, 1);
  EXPECT_EQ(got->WriterUuid(), "writer-1");
  EXPECT_EQ(got->timestamp, 1234);
  EXPECT_EQ(got->serializer_id, 5);
  EXPECT_EQ(got->manifest, "bank.Deposited.v1");
  EXPECT_EQ(got->adapter_manifest, "adapted");
  EXPECT_EQ(got->payload, "pay");
  EXPECT_EQ(got->tags, (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(Decode("account-7", 41, value).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST_F(EventCodecTest, ManifestNumbersSurviveAReopenAndAreNotReused) {
  const uint64_t first = Manifest("a.v1");
  EXPECT_EQ(Manifest("a.v1"), first);
  const uint64_t second = Manifest("b.v1");
  EXPECT_NE(second, first);
  db_.reset();
  RocksDbOptions options;
  options.path = dir_->path();
  options.fsync = false;
  absl::StatusOr<std::shared_ptr<Db>> db = Db::Open(options);
  ASSERT_OK(db);
  db_ = *std::move(db);
  EXPECT_GT(Manifest("c.v1"), second);
  absl::StatusOr<EventView> got =
      Decode("account-7", 42, EncodeEvent(Event(), Payload("x"), second));
  ASSERT_OK(got);
  EXPECT_EQ(got->manifest, "b.v1");
}

}  // namespace
}  // namespace cairn::persistence::rocksdb_internal
