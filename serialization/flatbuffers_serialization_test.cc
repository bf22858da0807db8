// The FlatBuffers helpers against the contract in
// flatbuffers_serialization.h: round trips, and damaged bytes are DataLoss,
// never a wild read.

#include "serialization/flatbuffers_serialization.h"

#include <cstdint>
#include <string>

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "serialization/flatbuffers_serialization_test_generated.h"
#include "serialization/serialization.h"

namespace cairn::serialization {
namespace {

// Stored as the test::Amount table, converted by hand.
struct Amount {
  int64_t value = 0;
};

void Register(SerializationRegistry& registry) {
  ASSERT_OK(RegisterFlatBuffers<test::GreetingT>(registry, "test.Greeting"));
  ASSERT_OK((RegisterFlatBuffersTable<Amount, test::Amount>(
      registry, "test.Amount",
      [](flatbuffers::FlatBufferBuilder& builder, const Amount& amount) {
        return test::CreateAmount(builder, amount.value);
      },
      [](const test::Amount& table) -> absl::StatusOr<Amount> {
        return Amount{table.amount()};
      })));
}

TEST(FlatBuffersSerializationTest, RoundTripsBothKindsOfRegistration) {
  SerializationRegistry registry;
  ASSERT_NO_FATAL_FAILURE(Register(registry));
  test::GreetingT greeting;
  greeting.name = "n";
  greeting.count = 5;
  absl::StatusOr<SerializedPayload> bytes =
      registry.Serialize(Payload::Of(greeting));
  ASSERT_OK(bytes);
  EXPECT_EQ(bytes->serializer_id, kCodecSerializerId);
  EXPECT_EQ(bytes->manifest, "test.Greeting");
  absl::StatusOr<Payload> back =
      registry.Deserialize(bytes->serializer_id, bytes->manifest, bytes->bytes);
  ASSERT_OK(back);
  ASSERT_NE(back->As<test::GreetingT>(), nullptr);
  EXPECT_EQ(back->As<test::GreetingT>()->name, "n");
  EXPECT_EQ(back->As<test::GreetingT>()->count, 5);

  absl::StatusOr<SerializedPayload> amount =
      registry.Serialize(Payload::Of(Amount{8}));
  ASSERT_OK(amount);
  absl::StatusOr<Payload> amount_back = registry.Deserialize(
      amount->serializer_id, amount->manifest, amount->bytes);
  ASSERT_OK(amount_back);
  ASSERT_NE(amount_back->As<Amount>(), nullptr);
  EXPECT_EQ(amount_back->As<Amount>()->value, 8);
}

TEST(FlatBuffersSerializationTest, VerifiesBytesBeforeUnpacking) {
  SerializationRegistry registry;
  ASSERT_NO_FATAL_FAILURE(Register(registry));
  test::GreetingT greeting;
  greeting.name = "n";
  greeting.count = 5;
  absl::StatusOr<SerializedPayload> bytes =
      registry.Serialize(Payload::Of(greeting));
  ASSERT_OK(bytes);
  for (const std::string& bad :
       {std::string(), std::string("abc"), bytes->bytes.substr(0, 6),
        std::string(bytes->bytes.size(), '\xff')}) {
    absl::StatusOr<Payload> decoded =
        registry.Deserialize(bytes->serializer_id, bytes->manifest, bad);
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss)
        << decoded.status();
  }
  absl::StatusOr<SerializedPayload> amount =
      registry.Serialize(Payload::Of(Amount{8}));
  ASSERT_OK(amount);
  EXPECT_EQ(registry.Deserialize(amount->serializer_id, amount->manifest, "")
                .status()
                .code(),
            absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace cairn::serialization
