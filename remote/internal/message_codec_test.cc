// The transport's codec: the runtime's own messages round trip with their
// refs, a module's through its ModuleSerializer with the messages it
// carries, and bytes from a peer that are broken or nested too deep are
// errors with reasons (random bytes: //remote/fuzz:frame_fuzzer_test).
#include "remote/internal/message_codec.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "remote/actor_ref_serialization.h"
#include "remote/internal/wire.pb.h"
#include "remote/module_serializer.h"
#include "serialization/serialization.h"

namespace cairn::remote::internal {
namespace {

class Idle final : public actor::Actor {
 public:
  Idle() {
    Receive<std::string>([](const std::string&) {});
  }
};

// A module's message: a ref and a message inside, as sharding's envelopes.
struct Carrier {
  actor::ActorRef ref;
  actor::AnyMessage inner;
};

// Writes a Carrier as its ref's path, a newline, and its inner message.
class CarrierSerializer final : public ModuleSerializer {
 public:
  int32_t Identifier() const override { return 39; }
  std::optional<std::string> ManifestOf(
      const std::type_info& type) const override {
    if (type == typeid(Carrier)) return "Carrier";
    return std::nullopt;
  }
  absl::StatusOr<std::string> Write(
      const actor::AnyMessage& message,
      const NestedMessages& nested) const override {
    const Carrier& carrier = *message.As<Carrier>();
    absl::StatusOr<std::string> inner = nested.Write(carrier.inner);
    if (!inner.ok()) return inner.status();
    return SerializedActorPath(carrier.ref) + "\n" + *inner;
  }
  absl::StatusOr<actor::AnyMessage> Read(
      std::string_view manifest, std::string_view bytes,
      const NestedMessages& nested) const override {
    if (manifest != "Carrier") return absl::NotFoundError("no such manifest");
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      return absl::InvalidArgumentError("no newline");
    }
    absl::StatusOr<actor::ActorRef> ref =
        ResolveSerializedActorPath(bytes.substr(0, newline));
    if (!ref.ok()) return ref.status();
    absl::StatusOr<actor::AnyMessage> inner =
        nested.Read(bytes.substr(newline + 1));
    if (!inner.ok()) return inner.status();
    return actor::AnyMessage::Of(Carrier{*ref, *std::move(inner)});
  }
};

[[maybe_unused]] const bool kCarrierRegistered =
    ModuleSerializers::Add(std::make_shared<CarrierSerializer>());

// Taken identifiers and those outside 5 to 40 are refused.
class OtherSerializer final : public ModuleSerializer {
 public:
  explicit OtherSerializer(int32_t id) : id_(id) {}
  int32_t Identifier() const override { return id_; }
  std::optional<std::string> ManifestOf(const std::type_info&) const override {
    return std::nullopt;
  }
  absl::StatusOr<std::string> Write(const actor::AnyMessage&,
                                    const NestedMessages&) const override {
    return std::string();
  }
  absl::StatusOr<actor::AnyMessage> Read(std::string_view, std::string_view,
                                         const NestedMessages&) const override {
    return absl::NotFoundError("none");
  }

 private:
  const int32_t id_;
};

class MessageCodecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
        actor::ActorSystem::Create("codec");
    ASSERT_OK(system);
    system_ = *std::move(system);
    codec_ = std::make_unique<MessageCodec>(system_.get(), nullptr);
    idle_ = system_->ActorOf(actor::Props::Create<Idle>(), "idle");
  }
  void TearDown() override { system_->Terminate().wait(); }

  actor::AnyMessage RoundTrip(const actor::AnyMessage& message) {
    wire::Payload payload;
    EXPECT_OK(codec_->Encode(message, &payload));
    absl::StatusOr<actor::AnyMessage> back = codec_->Decode(payload);
    EXPECT_OK(back);
    return back.ok() ? *back : actor::AnyMessage();
  }

  std::unique_ptr<actor::ActorSystem> system_;
  std::unique_ptr<MessageCodec> codec_;
  actor::ActorRef idle_;
};

TEST_F(MessageCodecTest, TheRuntimesMessagesRoundTripWithTheirRefs) {
  actor::AnyMessage identity = RoundTrip(actor::AnyMessage::Of(
      actor::ActorIdentity{actor::AnyMessage::Of(std::string("id")), idle_}));
  ASSERT_NE(identity.As<actor::ActorIdentity>(), nullptr);
  EXPECT_EQ(identity.As<actor::ActorIdentity>()->subject, idle_);
  EXPECT_EQ(*identity.As<actor::ActorIdentity>()->message_id.As<std::string>(),
            "id");

  actor::AnyMessage nobody = RoundTrip(actor::AnyMessage::Of(
      actor::ActorIdentity{actor::AnyMessage(), actor::ActorRef()}));
  ASSERT_NE(nobody.As<actor::ActorIdentity>(), nullptr);
  EXPECT_TRUE(nobody.As<actor::ActorIdentity>()->subject.IsNobody());
  EXPECT_TRUE(nobody.As<actor::ActorIdentity>()->message_id.empty());

  EXPECT_TRUE(RoundTrip(actor::AnyMessage::Of(actor::PoisonPill{}))
                  .Is<actor::PoisonPill>());
  EXPECT_TRUE(
      RoundTrip(actor::AnyMessage::Of(actor::Kill{})).Is<actor::Kill>());
  EXPECT_TRUE(RoundTrip(actor::AnyMessage()).empty());

  actor::AnyMessage failure = RoundTrip(actor::AnyMessage::Of(
      actor::StatusFailure{std::make_exception_ptr(std::out_of_range("x"))}));
  ASSERT_NE(failure.As<actor::StatusFailure>(), nullptr);
  try {
    std::rethrow_exception(failure.As<actor::StatusFailure>()->cause);
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "std::out_of_range: x");
  }
}

TEST_F(MessageCodecTest, ATypeNobodySerializesIsAnErrorNamingIt) {
  struct Unknown {};
  wire::Payload payload;
  absl::Status status =
      codec_->Encode(actor::AnyMessage::Of(Unknown{}), &payload);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("Unknown"), std::string::npos) << status;
}

TEST_F(MessageCodecTest, BrokenPayloadsAreErrorsWithReasons) {
  wire::Payload payload;
  payload.set_serializer_id(12345);
  EXPECT_EQ(codec_->Decode(payload).status().code(),
            absl::StatusCode::kNotFound);

  payload.set_serializer_id(kRuntimeMessagesSerializerId);
  payload.set_manifest("NoSuchMessage");
  EXPECT_EQ(codec_->Decode(payload).status().code(),
            absl::StatusCode::kNotFound);

  payload.set_manifest("Identify");
  payload.set_bytes("\xff\xff\xff\xff");
  EXPECT_EQ(codec_->Decode(payload).status().code(),
            absl::StatusCode::kInvalidArgument);

  wire::ActorIdentityMessage identity;
  identity.set_subject("not a path");
  payload.set_manifest("ActorIdentity");
  payload.set_bytes(identity.SerializeAsString());
  EXPECT_FALSE(codec_->Decode(payload).ok());
}

TEST_F(MessageCodecTest, IdentifyNestsOnlySoDeep) {
  auto nested = [](int depth) {
    actor::AnyMessage m = actor::AnyMessage::Of(std::string("core"));
    for (int i = 0; i < depth; ++i) {
      m = actor::AnyMessage::Of(actor::Identify{m});
    }
    return m;
  };
  wire::Payload payload;
  ASSERT_OK(codec_->Encode(nested(8), &payload));
  EXPECT_OK(codec_->Decode(payload));
  ASSERT_OK(codec_->Encode(nested(9), &payload));
  absl::StatusOr<actor::AnyMessage> deep = codec_->Decode(payload);
  EXPECT_EQ(deep.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(MessageCodecTest, AModulesMessageRoundTripsWithWhatItCarries) {
  actor::AnyMessage back = RoundTrip(actor::AnyMessage::Of(Carrier{
      idle_, actor::AnyMessage::Of(
                 actor::Identify{actor::AnyMessage::Of(std::string("id"))})}));
  ASSERT_NE(back.As<Carrier>(), nullptr);
  EXPECT_EQ(back.As<Carrier>()->ref, idle_);
  const auto* identify = back.As<Carrier>()->inner.As<actor::Identify>();
  ASSERT_NE(identify, nullptr);
  EXPECT_EQ(*identify->message_id.As<std::string>(), "id");

  actor::AnyMessage empty =
      RoundTrip(actor::AnyMessage::Of(Carrier{actor::ActorRef(), {}}));
  ASSERT_NE(empty.As<Carrier>(), nullptr);
  EXPECT_TRUE(empty.As<Carrier>()->ref.IsNobody());
  EXPECT_TRUE(empty.As<Carrier>()->inner.empty());
}

TEST_F(MessageCodecTest, AModulesMessageCarryingWhatNobodySerializesFails) {
  struct Unknown {};
  wire::Payload payload;
  absl::Status status = codec_->Encode(
      actor::AnyMessage::Of(Carrier{idle_, actor::AnyMessage::Of(Unknown{})}),
      &payload);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("Unknown"), std::string::npos) << status;
}

TEST_F(MessageCodecTest, BrokenModuleBytesAreErrorsWithReasons) {
  wire::Payload payload;
  payload.set_serializer_id(39);
  payload.set_manifest("Nothing");
  EXPECT_EQ(codec_->Decode(payload).status().code(),
            absl::StatusCode::kNotFound);
  payload.set_manifest("Carrier");
  payload.set_bytes("no newline");
  EXPECT_EQ(codec_->Decode(payload).status().code(),
            absl::StatusCode::kInvalidArgument);
  payload.set_bytes("\n\xff\xff");  // a nested payload that does not read
  EXPECT_EQ(codec_->Decode(payload).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(MessageCodecTest, ModuleMessagesNestOnlySoDeep) {
  auto nested = [this](int depth) {
    actor::AnyMessage m = actor::AnyMessage::Of(std::string("core"));
    for (int i = 0; i < depth; ++i) {
      m = actor::AnyMessage::Of(Carrier{idle_, m});
    }
    return m;
  };
  wire::Payload payload;
  ASSERT_OK(codec_->Encode(nested(8), &payload));
  EXPECT_OK(codec_->Decode(payload));
  ASSERT_OK(codec_->Encode(nested(9), &payload));
  EXPECT_EQ(codec_->Decode(payload).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ModuleSerializersTest, TakenOrOutOfRangeIdentifiersAreRefused) {
  EXPECT_FALSE(ModuleSerializers::Add(std::make_shared<OtherSerializer>(39)));
  EXPECT_FALSE(ModuleSerializers::Add(std::make_shared<OtherSerializer>(4)));
  EXPECT_FALSE(ModuleSerializers::Add(std::make_shared<OtherSerializer>(41)));
  EXPECT_FALSE(ModuleSerializers::Add(nullptr));
  std::string manifest;
  EXPECT_EQ(ModuleSerializers::ForType(typeid(Carrier), &manifest),
            ModuleSerializers::ById(39));
  EXPECT_EQ(manifest, "Carrier");
}

}  // namespace
}  // namespace cairn::remote::internal
