// RegisterJson, ToJson and FromJson, against json_serialization.h: the
// bytes, schema evolution by defaults and older manifests, and the errors.

#include "serialization/json_serialization.h"

#include <cstdint>
#include <string>
#include <vector>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::serialization {
namespace {

using ::testing::HasSubstr;

struct Deposited {
  int64_t amount = 0;
  std::string note;
  std::vector<std::string> tags;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposited, amount, note, tags)

// Without defaults: every field must be in the bytes.
struct Strict {
  int32_t x = 0;
  int32_t y = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Strict, x, y)

// Today's shape of a type whose first version called the field "sum".
struct Withdrawn {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Withdrawn, amount)

// The registry's round trip: what a journal does with an event.
template <typename T>
absl::StatusOr<T> RoundTrip(const SerializationRegistry& registry,
                            const T& value, std::string* bytes = nullptr) {
  absl::StatusOr<SerializedPayload> stored =
      registry.Serialize(Payload::Of(value));
  if (!stored.ok()) return stored.status();
  if (bytes != nullptr) *bytes = stored->bytes;
  absl::StatusOr<Payload> read = registry.Deserialize(
      stored->serializer_id, stored->manifest, stored->bytes);
  if (!read.ok()) return read.status();
  return *read->As<T>();
}

absl::StatusOr<Payload> Read(const SerializationRegistry& registry,
                             std::string manifest, std::string bytes) {
  return registry.Deserialize(kCodecSerializerId, manifest, bytes);
}

TEST(JsonSerializationTest, StoresCompactJsonAndReadsItBack) {
  SerializationRegistry registry;
  ASSERT_OK(RegisterJson<Deposited>(registry, "bank.Deposited"));
  std::string bytes;
  absl::StatusOr<Deposited> back =
      RoundTrip(registry, Deposited{100, "rent \"May\"", {"a", "b"}}, &bytes);
  ASSERT_OK(back);
  EXPECT_EQ(bytes, R"({"amount":100,"note":"rent \"May\"","tags":["a","b"]})");
  EXPECT_EQ(back->amount, 100);
  EXPECT_EQ(back->note, "rent \"May\"");
  EXPECT_EQ(back->tags, (std::vector<std::string>{"a", "b"}));
}

TEST(JsonSerializationTest, AFieldAddedLaterReadsAsItsDefault) {
  SerializationRegistry registry;
  ASSERT_OK(RegisterJson<Deposited>(registry, "bank.Deposited"));
  // Stored before `note` and `tags` existed, with a field since removed.
  absl::StatusOr<Payload> read =
      Read(registry, "bank.Deposited", R"({"amount":7,"currency":"EUR"})");
  ASSERT_OK(read);
  EXPECT_EQ(read->As<Deposited>()->amount, 7);
  EXPECT_EQ(read->As<Deposited>()->note, "");
  EXPECT_TRUE(read->As<Deposited>()->tags.empty());
}

TEST(JsonSerializationTest, AMissingFieldWithoutADefaultIsDataLossNamingIt) {
  SerializationRegistry registry;
  ASSERT_OK(RegisterJson<Strict>(registry, "geo.Point"));
  absl::StatusOr<Payload> read = Read(registry, "geo.Point", R"({"x":1})");
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("geo.Point"));
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("'y'"));
}

TEST(JsonSerializationTest, AFieldOfAnotherTypeIsDataLoss) {
  SerializationRegistry registry;
  ASSERT_OK(RegisterJson<Strict>(registry, "geo.Point"));
  absl::StatusOr<Payload> read =
      Read(registry, "geo.Point", R"({"x":1,"y":"two"})");
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("geo.Point"));
}

TEST(JsonSerializationTest, BytesThatAreNotJsonAreDataLoss) {
  SerializationRegistry registry;
  ASSERT_OK(RegisterJson<Strict>(registry, "geo.Point"));
  for (const std::string& bytes :
       {std::string("{\"x\":1,"), std::string("\xff\xfe", 2), std::string(),
        std::string("{\"x\":1,\"y\":2}trailing")}) {
    absl::StatusOr<Payload> read = Read(registry, "geo.Point", bytes);
    EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << bytes;
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("geo.Point"));
  }
}

TEST(JsonSerializationTest, AStringThatIsNotUtf8IsRejectedWhenStored) {
  SerializationRegistry registry;
  ASSERT_OK(RegisterJson<Deposited>(registry, "bank.Deposited"));
  absl::StatusOr<SerializedPayload> stored =
      registry.Serialize(Payload::Of(Deposited{1, std::string("\xff", 1), {}}));
  EXPECT_EQ(stored.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(stored.status().message()), HasSubstr("UTF-8"));
}

TEST(JsonSerializationTest, AnOlderManifestReadsTheOldShape) {
  SerializationRegistry registry;
  ASSERT_OK(RegisterJson<Withdrawn>(
      registry, "bank.Withdrawn.v2",
      {{"bank.Withdrawn.v1",
        [](std::string_view bytes) -> absl::StatusOr<Withdrawn> {
          absl::StatusOr<nlohmann::json> old =
              FromJson<nlohmann::json>(bytes, "bank.Withdrawn.v1");
          if (!old.ok()) return old.status();
          return Withdrawn{old->value("sum", int64_t{0})};
        }}}));
  absl::StatusOr<Payload> read =
      Read(registry, "bank.Withdrawn.v1", R"({"sum":30})");
  ASSERT_OK(read);
  EXPECT_EQ(read->As<Withdrawn>()->amount, 30);
  absl::StatusOr<SerializedPayload> stored =
      registry.Serialize(Payload::Of(Withdrawn{5}));
  ASSERT_OK(stored);
  EXPECT_EQ(stored->manifest, "bank.Withdrawn.v2");
}

}  // namespace
}  // namespace cairn::serialization
