#include "persistence/rocksdb/internal/state_codec.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::persistence::rocksdb_internal {
namespace {

using ::testing::HasSubstr;

StateRecord AValue() {
  StateRecord record;
  record.revision = 7;
  record.has_value = true;
  record.offset = 42;
  record.timestamp_ms = -5;  // ZigZag: any sign
  record.serializer_id = 1;
  record.manifest = "m";
  record.tag = "blue";
  record.payload = std::string_view("pay\0load", 8);
  return record;
}

TEST(StateCodecTest, AValueComesBackAsWritten) {
  const std::string value = EncodeState("p-1", AValue());
  absl::StatusOr<StateRecord> decoded = DecodeState("p-1", value);
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->revision, 7);
  EXPECT_TRUE(decoded->has_value);
  EXPECT_EQ(decoded->offset, 42);
  EXPECT_EQ(decoded->timestamp_ms, -5);
  EXPECT_EQ(decoded->serializer_id, 1);
  EXPECT_EQ(decoded->manifest, "m");
  EXPECT_EQ(decoded->tag, "blue");
  EXPECT_EQ(decoded->payload, std::string_view("pay\0load", 8));
}

StateRecord ATombstone() {
  StateRecord deleted;
  deleted.revision = 3;
  deleted.offset = 9;
  deleted.timestamp_ms = 1234;
  deleted.tag = "blue";
  return deleted;
}

TEST(StateCodecTest, ADeletedValueKeepsItsRevisionTagOffsetAndTime) {
  const std::string value = EncodeState("p-1", ATombstone());  // viewed
  absl::StatusOr<StateRecord> decoded = DecodeState("p-1", value);
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->revision, 3);
  EXPECT_FALSE(decoded->has_value);
  EXPECT_EQ(decoded->offset, 9);
  EXPECT_EQ(decoded->timestamp_ms, 1234);
  EXPECT_EQ(decoded->tag, "blue");
  EXPECT_TRUE(decoded->manifest.empty());
  EXPECT_TRUE(decoded->payload.empty());
}

TEST(StateCodecTest, AnIdDeletedWithoutAValueHasNoOffset) {
  StateRecord deleted;
  deleted.revision = 1;
  const std::string value = EncodeState("p-1", deleted);  // viewed
  absl::StatusOr<StateRecord> decoded = DecodeState("p-1", value);
  ASSERT_OK(decoded);
  EXPECT_EQ(decoded->revision, 1);
  EXPECT_FALSE(decoded->has_value);
  EXPECT_EQ(decoded->offset, 0);
  EXPECT_TRUE(decoded->tag.empty());
}

TEST(StateCodecTest, OffsetZeroIsOnlyForADeletedIdWithoutATag) {
  StateRecord value = AValue();
  value.offset = 0;
  EXPECT_EQ(DecodeState("p-1", EncodeState("p-1", value)).status().code(),
            absl::StatusCode::kDataLoss);
  StateRecord tagged = ATombstone();
  tagged.offset = 0;
  EXPECT_EQ(DecodeState("p-1", EncodeState("p-1", tagged)).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(StateCodecTest, EveryDamagedByteIsDataLossNamingTheId) {
  for (const StateRecord& record : {AValue(), ATombstone()}) {
    const std::string value = EncodeState("p-1", record);
    for (size_t i = 0; i < value.size(); ++i) {
      std::string damaged = value;
      damaged[i] = static_cast<char>(damaged[i] ^ 0x40);
      absl::StatusOr<StateRecord> decoded = DecodeState("p-1", damaged);
      ASSERT_FALSE(decoded.ok()) << "byte " << i;
      // The first byte may turn into a format a newer build would write.
      if (i != 0) {
        EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
      }
      EXPECT_THAT(std::string(decoded.status().message()), HasSubstr("'p-1'"));
    }
  }
  const std::string value = EncodeState("p-1", AValue());
  EXPECT_EQ(DecodeState("p-1", "").status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(DecodeState("p-1", value.substr(0, 3)).status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(StateCodecTest, AnotherIdsRecordFailsTheChecksum) {
  absl::StatusOr<StateRecord> decoded =
      DecodeState("p-2", EncodeState("p-1", AValue()));
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(decoded.status().message()), HasSubstr("checksum"));
}

TEST(StateCodecTest, ALaterFormatIsFailedPrecondition) {
  std::string value = EncodeState("p-1", AValue());
  value[0] = 2;
  EXPECT_EQ(DecodeState("p-1", value).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(StateCodecTest, TagKeysSortByTagThenOffset) {
  EXPECT_LT(StateTagKey("t", 2), StateTagKey("t", 10));
  EXPECT_LT(StateTagKey("t", INT64_MAX), StateTagEnd("t"));
  EXPECT_LT(std::string(kHighestStateOffsetKey), StateTagKey("", 1));
  // Neither tag's range enters the other's.
  EXPECT_FALSE(StateTagKey("ab", 1) > StateTagKey("a", 1) &&
               StateTagKey("ab", 1) < StateTagEnd("a"));
  absl::StatusOr<int64_t> offset = DecodeStateTagKey("t", StateTagKey("t", 9));
  ASSERT_OK(offset);
  EXPECT_EQ(*offset, 9);
  EXPECT_EQ(DecodeStateTagKey("u", StateTagKey("t", 9)).status().code(),
            absl::StatusCode::kDataLoss);
  absl::StatusOr<int64_t> highest = DecodeStateOffset(EncodeStateOffset(12345));
  ASSERT_OK(highest);
  EXPECT_EQ(*highest, 12345);
  EXPECT_EQ(DecodeStateOffset("abc").status().code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace cairn::persistence::rocksdb_internal
