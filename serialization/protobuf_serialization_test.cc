// Protocol Buffers messages through SerializationRegistry with no
// registration (serialization.h), and Payload::ThrowPointer they rest on.

#include <memory>
#include <string>
#include <thread>
#include <typeindex>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "serialization/payload.h"
#include "serialization/protobuf_serialization_test.pb.h"
#include "serialization/serialization.h"
#include "serialization/serializer.h"

namespace cairn::serialization {
namespace {

using ::testing::HasSubstr;

struct Plain {
  int n = 0;
};

struct Base {
  virtual ~Base() = default;
};
struct Derived : Base {
  int n = 7;
};

serialization_test::Order SampleOrder() {
  serialization_test::Order order;
  order.set_id("o-1");
  serialization_test::Item* first = order.add_items();
  first->set_sku("apple");
  first->set_quantity(3);
  serialization_test::Item* second = order.add_items();
  second->set_sku("pear");
  second->set_quantity(5);
  order.add_amounts(100);
  order.add_amounts(-250);
  order.mutable_gift()->set_sku("card");
  return order;
}

TEST(PayloadTest, ThrowPointerThrowsAPointerToTheValueAsItsClass) {
  const Payload payload = Payload::Of(Derived{});
  try {
    payload.ThrowPointer();
  } catch (const Base* base) {
    EXPECT_EQ(base, payload.As<Derived>());
    EXPECT_EQ(static_cast<const Derived*>(base)->n, 7);
    return;
  } catch (...) {
  }
  ADD_FAILURE() << "ThrowPointer did not throw a pointer to a Base";
}

TEST(PayloadTest, ThrowPointerOfAnUnrelatedTypeMatchesNoOtherClass) {
  const Payload payload =
      Payload::FromShared(std::make_shared<const Plain>(Plain{3}));
  bool as_base = false;
  const Plain* as_plain = nullptr;
  try {
    payload.ThrowPointer();
  } catch (const Base*) {
    as_base = true;
  } catch (const Plain* p) {
    as_plain = p;
  }
  EXPECT_FALSE(as_base);
  EXPECT_EQ(as_plain, payload.As<Plain>());
}

TEST(ProtobufSerializationTest, RoundTripsAMessageWithNoRegistration) {
  SerializationRegistry registry;
  serialization_test::Ping ping;
  ping.set_n(42);
  ASSERT_OK_AND_ASSIGN(SerializedPayload stored,
                       registry.Serialize(Payload::Of(ping)));
  EXPECT_EQ(stored.serializer_id, kProtobufSerializerId);
  EXPECT_EQ(stored.manifest, "serialization_test.Ping");
  EXPECT_EQ(stored.bytes, ping.SerializeAsString());

  ASSERT_OK_AND_ASSIGN(
      Payload read, registry.Deserialize(stored.serializer_id, stored.manifest,
                                         stored.bytes));
  EXPECT_EQ(read.type(), std::type_index(typeid(serialization_test::Ping)));
  const serialization_test::Ping* decoded = read.As<serialization_test::Ping>();
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(decoded->n(), 42);
}

TEST(ProtobufSerializationTest, RoundTripsNestedMessagesAndRepeatedFields) {
  SerializationRegistry registry;
  const serialization_test::Order order = SampleOrder();
  ASSERT_OK_AND_ASSIGN(SerializedPayload stored,
                       registry.Serialize(Payload::Of(order)));
  EXPECT_EQ(stored.manifest, "serialization_test.Order");
  ASSERT_OK_AND_ASSIGN(
      Payload read, registry.Deserialize(stored.serializer_id, stored.manifest,
                                         stored.bytes));
  const serialization_test::Order* decoded =
      read.As<serialization_test::Order>();
  ASSERT_NE(decoded, nullptr);
  EXPECT_EQ(decoded->id(), "o-1");
  ASSERT_EQ(decoded->items_size(), 2);
  EXPECT_EQ(decoded->items(0).sku(), "apple");
  EXPECT_EQ(decoded->items(0).quantity(), 3);
  EXPECT_EQ(decoded->items(1).sku(), "pear");
  EXPECT_EQ(decoded->items(1).quantity(), 5);
  ASSERT_EQ(decoded->amounts_size(), 2);
  EXPECT_EQ(decoded->amounts(0), 100);
  EXPECT_EQ(decoded->amounts(1), -250);
  EXPECT_TRUE(decoded->has_gift());
  EXPECT_EQ(decoded->gift().sku(), "card");
}

TEST(ProtobufSerializationTest, ADecodedMessageMatchesTheMessageBase) {
  SerializationRegistry registry;
  serialization_test::Ping ping;
  ping.set_n(5);
  ASSERT_OK_AND_ASSIGN(SerializedPayload stored,
                       registry.Serialize(Payload::Of(ping)));
  ASSERT_OK_AND_ASSIGN(
      Payload read, registry.Deserialize(stored.serializer_id, stored.manifest,
                                         stored.bytes));
  try {
    read.ThrowPointer();
  } catch (const google::protobuf::Message* message) {
    EXPECT_EQ(message->GetDescriptor()->full_name(), "serialization_test.Ping");
    EXPECT_EQ(static_cast<const void*>(message),
              static_cast<const void*>(read.As<serialization_test::Ping>()));
    return;
  } catch (...) {
  }
  ADD_FAILURE() << "a decoded payload did not throw a protobuf Message";
}

TEST(ProtobufSerializationTest, AnUnknownManifestIsNotFoundNamingIt) {
  SerializationRegistry registry;
  absl::StatusOr<Payload> read =
      registry.Deserialize(kProtobufSerializerId, "nowhere.Missing", "");
  ASSERT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(read.status().message(),
              HasSubstr("no protobuf message type 'nowhere.Missing' is "
                        "linked into this program"));
}

TEST(ProtobufSerializationTest, GarbageBytesAreAnErrorNamingTheManifest) {
  SerializationRegistry registry;
  // Field 1 (a string) announcing 16 bytes, with 3 given.
  absl::StatusOr<Payload> truncated = registry.Deserialize(
      kProtobufSerializerId, "serialization_test.Order", "\x0a\x10o-1");
  ASSERT_EQ(truncated.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(truncated.status().message(),
              HasSubstr("serialization_test.Order"));
  // Field number 0 exists in no message.
  absl::StatusOr<Payload> bad_tag =
      registry.Deserialize(kProtobufSerializerId, "serialization_test.Ping",
                           std::string("\x00\x01", 2));
  EXPECT_EQ(bad_tag.status().code(), absl::StatusCode::kDataLoss);
}

TEST(ProtobufSerializationTest, MissingRequiredFieldsAreAnErrorBothWays) {
  SerializationRegistry registry;
  absl::StatusOr<SerializedPayload> stored =
      registry.Serialize(Payload::Of(serialization_test::Signed{}));
  ASSERT_EQ(stored.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stored.status().message(), HasSubstr("signature"));
  EXPECT_THAT(stored.status().message(),
              HasSubstr("serialization_test.Signed"));

  absl::StatusOr<Payload> read = registry.Deserialize(
      kProtobufSerializerId, "serialization_test.Signed", "");
  ASSERT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(read.status().message(), HasSubstr("signature"));
}

TEST(ProtobufSerializationTest, AnUnboundTypeThatIsNoMessageNamesTheType) {
  SerializationRegistry registry;
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second one cached
    absl::StatusOr<SerializedPayload> stored =
        registry.Serialize(Payload::Of(Plain{1}));
    ASSERT_EQ(stored.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(stored.status().message(), HasSubstr("Plain"));
    EXPECT_THAT(stored.status().message(), HasSubstr("Register"));
    EXPECT_THAT(stored.status().message(), HasSubstr("protobuf message"));
  }
}

TEST(ProtobufSerializationTest, AnExplicitRegisterOfAMessageTypeWins) {
  SerializationRegistry registry;
  ASSERT_OK(registry.Register<serialization_test::Ping>(
      "test.Ping.v1",
      [](const serialization_test::Ping& p) -> absl::StatusOr<std::string> {
        return absl::StrCat(p.n());
      },
      [](Bytes bytes) -> absl::StatusOr<serialization_test::Ping> {
        serialization_test::Ping p;
        int n = 0;
        if (!absl::SimpleAtoi(bytes, &n)) {
          return absl::DataLossError("not a number");
        }
        p.set_n(n);
        return p;
      }));
  serialization_test::Ping ping;
  ping.set_n(9);
  ASSERT_OK_AND_ASSIGN(SerializedPayload stored,
                       registry.Serialize(Payload::Of(ping)));
  EXPECT_EQ(stored.serializer_id, kCodecSerializerId);
  EXPECT_EQ(stored.manifest, "test.Ping.v1");
  EXPECT_EQ(stored.bytes, "9");
  // Other message types still need nothing.
  ASSERT_OK_AND_ASSIGN(SerializedPayload order,
                       registry.Serialize(Payload::Of(SampleOrder())));
  EXPECT_EQ(order.serializer_id, kProtobufSerializerId);
}

TEST(ProtobufSerializationTest, BindingToTheProtobufSerializerIsRefused) {
  SerializationRegistry registry;
  absl::Status bound = registry.Bind<serialization_test::Ping>(
      kProtobufSerializerId, "whatever");
  EXPECT_EQ(bound.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bound.message(), HasSubstr("no Bind"));
}

TEST(ProtobufSerializationTest, TypeWithManifestDoesNotKnowMessages) {
  SerializationRegistry registry;
  EXPECT_EQ(
      registry.TypeWithManifest("serialization_test.Ping").status().code(),
      absl::StatusCode::kNotFound);
}

// Many threads asking about the same new types at once (run under TSan).
TEST(ProtobufSerializationTest, SerializesFromManyThreadsAtOnce) {
  SerializationRegistry registry;
  const Payload ping = Payload::Of(serialization_test::Ping{});
  const Payload order = Payload::Of(SampleOrder());
  const Payload item = Payload::Of(serialization_test::Item{});
  const Payload plain = Payload::Of(Plain{});
  constexpr int kThreads = 4;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        for (const Payload* p : {&ping, &order, &item}) {
          absl::StatusOr<SerializedPayload> s = registry.Serialize(*p);
          if (!s.ok() || s->serializer_id != kProtobufSerializerId) {
            ++failures[t];
          }
        }
        if (registry.Serialize(plain).status().code() !=
            absl::StatusCode::kInvalidArgument) {
          ++failures[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << t;
}

}  // namespace
}  // namespace cairn::serialization
