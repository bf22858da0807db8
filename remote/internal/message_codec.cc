#include "remote/internal/message_codec.h"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "actor/actor_path.h"
#include "actor/messages.h"
#include "base/string_view.h"
#include "remote/actor_ref_serialization.h"
#include "remote/module_serializer.h"
#include "serialization/payload.h"

namespace cairn::remote::internal {
namespace {

constexpr std::string_view kIdentify = "Identify";
constexpr std::string_view kActorIdentity = "ActorIdentity";
constexpr std::string_view kPoisonPill = "PoisonPill";
constexpr std::string_view kKill = "Kill";
constexpr std::string_view kStatusFailure = "StatusFailure";
// Identify(Identify(...)) at most this deep.
constexpr int kMaxNesting = 8;

bool Parse(google::protobuf::MessageLite& m, std::string_view bytes) {
  return m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

std::shared_ptr<const serialization::SerializationRegistry> OrDefault(
    std::shared_ptr<const serialization::SerializationRegistry> registry) {
  if (registry != nullptr) return registry;
  return std::make_shared<const serialization::SerializationRegistry>();
}

}  // namespace

// What a module serializer writes and reads the messages it carries with:
// this codec, one level deeper.
class MessageCodec::Nested final : public NestedMessages {
 public:
  Nested(const MessageCodec& codec, int depth) : codec_(codec), depth_(depth) {}

  absl::StatusOr<std::string> Write(
      const actor::AnyMessage& message) const override {
    if (message.empty()) return std::string();
    wire::Payload payload;
    if (absl::Status s = codec_.Encode(message, &payload); !s.ok()) return s;
    return payload.SerializeAsString();
  }
  absl::StatusOr<actor::AnyMessage> Read(
      std::string_view bytes) const override {
    if (bytes.empty()) return actor::AnyMessage();
    wire::Payload payload;
    if (!Parse(payload, bytes)) {
      return absl::InvalidArgumentError("a nested message does not read");
    }
    return codec_.DecodeAt(payload, depth_);
  }
  absl::StatusOr<NestedParts> WriteParts(
      const actor::AnyMessage& message) const override {
    NestedParts parts;
    if (absl::Status s = codec_.EncodeParts(message, &parts); !s.ok()) {
      return s;
    }
    return parts;
  }
  absl::StatusOr<actor::AnyMessage> ReadParts(
      int32_t serializer_id, std::string_view manifest,
      std::string_view bytes) const override {
    return codec_.DecodeAt(serializer_id, manifest, bytes, depth_);
  }

 private:
  const MessageCodec& codec_;
  const int depth_;
};

MessageCodec::MessageCodec(
    actor::ActorSystem* system,
    std::shared_ptr<const serialization::SerializationRegistry> registry)
    : system_(system), registry_(OrDefault(std::move(registry))) {}

absl::Status MessageCodec::Encode(const actor::AnyMessage& message,
                                  wire::Payload* out) const {
  NestedParts parts;
  absl::Status status = EncodeParts(message, &parts);
  if (!status.ok()) return status;
  out->set_serializer_id(parts.serializer_id);
  out->set_manifest(std::move(parts.manifest));
  out->set_bytes(std::move(parts.bytes));
  return absl::OkStatus();
}

absl::Status MessageCodec::EncodeParts(const actor::AnyMessage& message,
                                       NestedParts* out) const {
  *out = NestedParts();
  if (message.empty()) return absl::OkStatus();
  absl::Status status;
  if (EncodeRuntime(message, out, &status)) return status;
  // Refs inside the message are written for this system.
  SerializationScope scope(system_);
  std::string manifest;
  if (const ModuleSerializer* module =
          ModuleSerializers::ForType(message.type(), &manifest)) {
    absl::StatusOr<std::string> bytes =
        module->Write(message, Nested(*this, /*depth=*/0));
    if (!bytes.ok()) return bytes.status();
    out->serializer_id = module->Identifier();
    out->manifest = std::move(manifest);
    out->bytes = *std::move(bytes);
    return absl::OkStatus();
  }
  absl::StatusOr<serialization::SerializedPayload> serialized =
      registry_->Serialize(serialization::Payload::Adopt(
          message.SharedValue(), message.type(), message.pointer_thrower()));
  if (!serialized.ok()) return serialized.status();
  out->serializer_id = serialized->serializer_id;
  out->manifest = std::move(serialized->manifest);
  out->bytes = std::move(serialized->bytes);
  return absl::OkStatus();
}

absl::StatusOr<actor::AnyMessage> MessageCodec::Decode(
    const wire::Payload& payload) const {
  return DecodeAt(payload, 0);
}

absl::StatusOr<actor::AnyMessage> MessageCodec::DecodeAt(
    const wire::Payload& payload, int depth) const {
  return DecodeAt(payload.serializer_id(), payload.manifest(), payload.bytes(),
                  depth);
}

absl::StatusOr<actor::AnyMessage> MessageCodec::DecodeAt(
    int32_t serializer_id, std::string_view manifest, std::string_view bytes,
    int depth) const {
  if (serializer_id == 0) return actor::AnyMessage();
  if (serializer_id == kRuntimeMessagesSerializerId) {
    return DecodeRuntime(manifest, bytes, depth);
  }
  SerializationScope scope(system_);
  if (const ModuleSerializer* module = ModuleSerializers::ById(serializer_id)) {
    if (depth >= kMaxNesting) {
      return absl::InvalidArgumentError(base::StrCat(
          "a ", manifest, " nested in more than ", kMaxNesting, " others"));
    }
    absl::StatusOr<actor::AnyMessage> message =
        module->Read(manifest, bytes, Nested(*this, depth + 1));
    if (message.ok() && message->empty()) {
      return absl::InvalidArgumentError(base::StrCat(
          "module serializer ", serializer_id, " read an empty ", manifest));
    }
    return message;
  }
  absl::StatusOr<serialization::Payload> value =
      registry_->Deserialize(serializer_id, manifest, bytes);
  if (!value.ok()) return value.status();
  if (value->empty()) {
    return absl::InvalidArgumentError(
        base::StrCat("serializer ", serializer_id,
                     " read an empty value for manifest '", manifest, "'"));
  }
  return actor::AnyMessage::Adopt(value->shared(), value->type_info(),
                                  value->pointer_thrower());
}

std::string MessageCodec::RefToText(const actor::ActorRef& ref) const {
  if (ref.IsNobody()) return "";
  return system_->ExposedPath(ref).ToStringWithUid();
}

absl::StatusOr<actor::ActorRef> MessageCodec::TextToRef(
    std::string_view text) const {
  if (text.empty()) return actor::ActorRef::NoSender();
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(text);
  if (!path.ok()) return path.status();
  return system_->ResolveActorRef(*path);
}

bool MessageCodec::EncodeRuntime(const actor::AnyMessage& message,
                                 NestedParts* out, absl::Status* status) const {
  const std::type_info& type = message.type();
  std::string_view manifest;
  std::string bytes;
  if (type == typeid(actor::PoisonPill)) {
    manifest = kPoisonPill;
  } else if (type == typeid(actor::Kill)) {
    manifest = kKill;
  } else if (const auto* identify = message.As<actor::Identify>();
             identify != nullptr && type == typeid(actor::Identify)) {
    manifest = kIdentify;
    wire::IdentifyMessage m;
    *status = Encode(identify->message_id, m.mutable_message_id());
    bytes = m.SerializeAsString();
  } else if (const auto* identity = message.As<actor::ActorIdentity>();
             identity != nullptr && type == typeid(actor::ActorIdentity)) {
    manifest = kActorIdentity;
    wire::ActorIdentityMessage m;
    *status = Encode(identity->message_id, m.mutable_message_id());
    m.set_subject(RefToText(identity->subject));
    bytes = m.SerializeAsString();
  } else if (const auto* failure = message.As<actor::StatusFailure>();
             failure != nullptr && type == typeid(actor::StatusFailure)) {
    manifest = kStatusFailure;
    wire::StatusFailureMessage m;
    try {
      if (failure->cause != nullptr) std::rethrow_exception(failure->cause);
      m.set_what("no cause");
    } catch (const std::exception& e) {
      m.set_type(actor::DemangledTypeName(typeid(e)));
      m.set_what(e.what());
    } catch (...) {
      m.set_what("an exception that is not a std::exception");
    }
    bytes = m.SerializeAsString();
  } else {
    return false;
  }
  if (status->ok()) {
    out->serializer_id = kRuntimeMessagesSerializerId;
    out->manifest = std::string(manifest);
    out->bytes = std::move(bytes);
  }
  return true;
}

absl::StatusOr<actor::AnyMessage> MessageCodec::DecodeRuntime(
    std::string_view manifest, std::string_view bytes, int depth) const {
  if (depth >= kMaxNesting) {
    return absl::InvalidArgumentError(base::StrCat(
        "a ", manifest, " nested in more than ", kMaxNesting, " others"));
  }
  auto unreadable = [&] {
    return absl::InvalidArgumentError(
        base::StrCat("the bytes of a ", manifest, " do not read"));
  };
  if (manifest == kPoisonPill)
    return actor::AnyMessage::Of(actor::PoisonPill{});
  if (manifest == kKill) return actor::AnyMessage::Of(actor::Kill{});
  if (manifest == kIdentify) {
    wire::IdentifyMessage m;
    if (!Parse(m, bytes)) return unreadable();
    absl::StatusOr<actor::AnyMessage> id = DecodeAt(m.message_id(), depth + 1);
    if (!id.ok()) return id.status();
    return actor::AnyMessage::Of(actor::Identify{*std::move(id)});
  }
  if (manifest == kActorIdentity) {
    wire::ActorIdentityMessage m;
    if (!Parse(m, bytes)) return unreadable();
    absl::StatusOr<actor::AnyMessage> id = DecodeAt(m.message_id(), depth + 1);
    if (!id.ok()) return id.status();
    absl::StatusOr<actor::ActorRef> subject = TextToRef(m.subject());
    if (!subject.ok()) return subject.status();
    return actor::AnyMessage::Of(
        actor::ActorIdentity{*std::move(id), *std::move(subject)});
  }
  if (manifest == kStatusFailure) {
    wire::StatusFailureMessage m;
    if (!Parse(m, bytes)) return unreadable();
    // The exception's own type is not linked here, nor is it known to be
    // constructible from text: the receiver gets its text.
    std::string what =
        m.type().empty() ? m.what() : base::StrCat(m.type(), ": ", m.what());
    return actor::AnyMessage::Of(actor::StatusFailure{
        std::make_exception_ptr(std::runtime_error(std::move(what)))});
  }
  return absl::NotFoundError(
      base::StrCat("no runtime message has manifest '", manifest, "'"));
}

}  // namespace cairn::remote::internal
