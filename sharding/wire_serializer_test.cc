// Sharding's messages on the wire (serializer 13): each round trips with
// the message it carries, and bytes from a peer that are cut, random or
// out of range are errors with reasons, never a crash.
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "actor/any_message.h"
#include "base/status_testing.h"
#include "google/protobuf/message_lite.h"
#include "gtest/gtest.h"
#include "remote/module_serializer.h"
#include "sharding/entity_region.h"
#include "sharding/internal/routing_messages.h"
#include "sharding/internal/sharding_wire.pb.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {
namespace {

// Nested messages as the transport would write them, for strings only.
class StringsOnly final : public remote::NestedMessages {
 public:
  absl::StatusOr<std::string> Write(
      const actor::AnyMessage& message) const override {
    if (message.empty()) return std::string();
    if (const auto* s = message.As<std::string>()) return "s" + *s;
    return absl::InvalidArgumentError("not a string");
  }
  absl::StatusOr<actor::AnyMessage> Read(
      std::string_view bytes) const override {
    if (bytes.empty()) return actor::AnyMessage();
    if (bytes[0] != 's') return absl::InvalidArgumentError("not a string");
    return actor::AnyMessage::Of(std::string(bytes.substr(1)));
  }
  absl::StatusOr<remote::NestedParts> WriteParts(
      const actor::AnyMessage& message) const override {
    if (message.empty()) return remote::NestedParts();
    if (const auto* s = message.As<std::string>()) {
      return remote::NestedParts{kStringSerializer, "string", *s};
    }
    return absl::InvalidArgumentError("not a string");
  }
  absl::StatusOr<actor::AnyMessage> ReadParts(
      int32_t serializer_id, std::string_view manifest,
      std::string_view bytes) const override {
    if (serializer_id == 0) return actor::AnyMessage();
    if (serializer_id != kStringSerializer || manifest != "string") {
      return absl::NotFoundError("not a string");
    }
    return actor::AnyMessage::Of(std::string(bytes));
  }

 private:
  static constexpr int32_t kStringSerializer = 1;
};

const remote::ModuleSerializer& Serializer() {
  const remote::ModuleSerializer* s = remote::ModuleSerializers::ById(13);
  EXPECT_NE(s, nullptr) << "sharding's serializer is not registered";
  return *s;
}

actor::AnyMessage RoundTrip(const actor::AnyMessage& message) {
  std::string manifest;
  const remote::ModuleSerializer* s =
      remote::ModuleSerializers::ForType(message.type(), &manifest);
  EXPECT_EQ(s, &Serializer());
  if (s == nullptr) return actor::AnyMessage();
  StringsOnly nested;
  absl::StatusOr<std::string> bytes = s->Write(message, nested);
  EXPECT_OK(bytes);
  if (!bytes.ok()) return actor::AnyMessage();
  absl::StatusOr<actor::AnyMessage> back = s->Read(manifest, *bytes, nested);
  EXPECT_OK(back);
  return back.ok() ? *back : actor::AnyMessage();
}

TEST(WireSerializerTest, ShardingsMessagesRoundTrip) {
  actor::AnyMessage envelope = RoundTrip(actor::AnyMessage::Of(
      ShardingEnvelope{"42", actor::AnyMessage::Of(std::string("deposit"))}));
  ASSERT_NE(envelope.As<ShardingEnvelope>(), nullptr);
  EXPECT_EQ(envelope.As<ShardingEnvelope>()->entity_id, "42");
  EXPECT_EQ(*envelope.As<ShardingEnvelope>()->message.As<std::string>(),
            "deposit");

  actor::AnyMessage start = RoundTrip(actor::AnyMessage::Of(StartEntity{"7"}));
  ASSERT_NE(start.As<StartEntity>(), nullptr);
  EXPECT_EQ(start.As<StartEntity>()->entity_id, "7");

  actor::AnyMessage ack =
      RoundTrip(actor::AnyMessage::Of(StartEntityAck{"7", "3"}));
  ASSERT_NE(ack.As<StartEntityAck>(), nullptr);
  EXPECT_EQ(ack.As<StartEntityAck>()->shard_id, "3");

  actor::AnyMessage unavailable = RoundTrip(
      actor::AnyMessage::Of(ShardUnavailable{"account", "3", "held"}));
  ASSERT_NE(unavailable.As<ShardUnavailable>(), nullptr);
  EXPECT_EQ(unavailable.As<ShardUnavailable>()->reason, "held");

  actor::AnyMessage routed =
      RoundTrip(actor::AnyMessage::Of(internal::RoutedDelivery{
          "3", "7", actor::AnyMessage::Of(std::string("x")), false,
          actor::ActorRef(), 2}));
  const auto* r = routed.As<internal::RoutedDelivery>();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->shard_id, "3");
  EXPECT_EQ(r->entity_id, "7");
  EXPECT_EQ(*r->message.As<std::string>(), "x");
  EXPECT_EQ(r->hops, 2);
  EXPECT_TRUE(r->origin.IsNobody());

  actor::AnyMessage routed_start =
      RoundTrip(actor::AnyMessage::Of(internal::RoutedDelivery{
          "3", "7", actor::AnyMessage(), true, actor::ActorRef(), 0}));
  const auto* rs = routed_start.As<internal::RoutedDelivery>();
  ASSERT_NE(rs, nullptr);
  EXPECT_TRUE(rs->start);
  EXPECT_TRUE(rs->message.empty());

  actor::AnyMessage host =
      RoundTrip(actor::AnyMessage::Of(internal::HostShard{"9"}));
  ASSERT_NE(host.As<internal::HostShard>(), nullptr);
  EXPECT_EQ(host.As<internal::HostShard>()->shard_id, "9");

  actor::AnyMessage status = RoundTrip(actor::AnyMessage::Of(
      internal::RegionStatus{"akka://shop@127.0.0.1:2552#7", true}));
  ASSERT_NE(status.As<internal::RegionStatus>(), nullptr);
  EXPECT_EQ(status.As<internal::RegionStatus>()->member,
            "akka://shop@127.0.0.1:2552#7");
  EXPECT_TRUE(status.As<internal::RegionStatus>()->hosting);
}

TEST(WireSerializerTest, APayloadTheTransportCannotWriteIsAnError) {
  StringsOnly nested;
  absl::StatusOr<std::string> bytes = Serializer().Write(
      actor::AnyMessage::Of(ShardingEnvelope{"1", actor::AnyMessage::Of(5)}),
      nested);
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(WireSerializerTest, BrokenBytesAreErrorsWithReasons) {
  StringsOnly nested;
  EXPECT_EQ(Serializer().Read("NoSuchMessage", "", nested).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Serializer()
                .Read("ShardingEnvelope", "\xff\xff\xff", nested)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  auto code_of = [&](const std::string& manifest,
                     const google::protobuf::MessageLite& m) {
    return Serializer()
        .Read(manifest, m.SerializeAsString(), nested)
        .status()
        .code();
  };
  wire::RoutedDelivery far;
  far.set_hops(5000);
  EXPECT_EQ(code_of("RoutedDelivery", far), absl::StatusCode::kInvalidArgument);
  wire::RoutedDelivery no_message;  // and not a StartEntity
  no_message.set_shard_id("3");
  no_message.set_entity_id("7");
  EXPECT_EQ(code_of("RoutedDelivery", no_message),
            absl::StatusCode::kInvalidArgument);
  wire::RoutedDelivery unknown;
  unknown.set_message_serializer(99);
  unknown.set_message_bytes("x");
  EXPECT_EQ(code_of("RoutedDelivery", unknown), absl::StatusCode::kNotFound);
  wire::ShardingEnvelope bad_payload;
  bad_payload.set_message("not a string's bytes");
  EXPECT_EQ(code_of("ShardingEnvelope", bad_payload),
            absl::StatusCode::kInvalidArgument);
  // A ref, outside a transport's reading, is not resolved (the transport
  // makes the scope): an error, not a ref to nowhere.
  wire::ShardHome home;
  home.set_region("akka://shop@127.0.0.1:2552/user/counter");
  EXPECT_EQ(code_of("ShardHome", home), absl::StatusCode::kFailedPrecondition);
}

TEST(WireSerializerTest, RandomBytesNeverCrash) {
  StringsOnly nested;
  std::mt19937 random(20261129);
  const std::vector<std::string> manifests = {
      "ShardingEnvelope", "StartEntity", "StartEntityAck", "ShardUnavailable",
      "RoutedDelivery",   "ShardHome",   "HostShard",      "RegionStatus"};
  for (std::size_t i = 0; i < 3000 * manifests.size(); ++i) {
    std::string bytes(random() % 64, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    // Whatever it reads is a message or an error: never empty, never a
    // crash (ASan and UBSan run this too).
    absl::StatusOr<actor::AnyMessage> m =
        Serializer().Read(manifests[i % manifests.size()], bytes, nested);
    if (m.ok()) {
      EXPECT_FALSE(m->empty());
    }
  }
}

}  // namespace
}  // namespace cairn::sharding
