#include "serialization/internal/protobuf_serializer.h"

#include <climits>
#include <memory>
#include <typeinfo>
#include <utility>

#include "absl/status/status.h"
#include "base/string_view.h"
#include "google/protobuf/descriptor.h"

namespace cairn::serialization::internal {
namespace {

using google::protobuf::Message;

// Where the value's Message base lies, by the thrown pointer: a `const T*`
// is caught as a `const Message*` only if T derives from Message, and the
// catch converts it to the base's address.
std::optional<std::ptrdiff_t> MessageOffset(const Payload& payload) {
  try {
    payload.ThrowPointer();
  } catch (const Message* message) {
    return static_cast<const char*>(static_cast<const void*>(message)) -
           static_cast<const char*>(payload.shared().get());
  } catch (...) {
  }
  return std::nullopt;
}

}  // namespace

const Message* ProtobufSerializer::AsMessage(const Payload& payload) const {
  if (payload.empty()) return nullptr;
  std::optional<std::optional<std::ptrdiff_t>> known;
  {
    base::ReaderMutexLock lock(&mu_);
    auto it = message_offsets_.find(payload.type());
    if (it != message_offsets_.end()) known = it->second;
  }
  if (!known.has_value()) {
    // Outside the lock: a throw is slow. Two threads may both ask for a
    // new type; they get the same answer.
    known = MessageOffset(payload);
    base::WriterMutexLock lock(&mu_);
    message_offsets_.try_emplace(payload.type(), *known);
  }
  if (!known->has_value()) return nullptr;
  // The same type has its base at the same offset in every value.
  return reinterpret_cast<const Message*>(
      static_cast<const char*>(payload.shared().get()) + **known);
}

const std::string& ProtobufSerializer::Manifest(const Message& message) {
  return message.GetDescriptor()->full_name();
}

absl::StatusOr<std::string> ProtobufSerializer::Encode(const Message& message) {
  // libprotobuf checks required fields only in debug builds: unchecked, a
  // message missing them would be written and then fail every read.
  if (!message.IsInitialized()) {
    return absl::InvalidArgumentError(base::StrCat(
        "protobuf message ", Manifest(message),
        " is missing required fields: ", message.InitializationErrorString()));
  }
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return absl::InvalidArgumentError(base::StrCat(
        "protobuf message ", Manifest(message), " of ", message.ByteSizeLong(),
        " bytes exceeds protobuf's 2 GiB limit"));
  }
  return bytes;
}

absl::StatusOr<std::string> ProtobufSerializer::ToBinary(
    const Payload& payload) const {
  const Message* message = AsMessage(payload);
  if (message == nullptr) {
    return absl::InvalidArgumentError(
        base::StrCat(payload.TypeName(),
                     " is not a protobuf message (does not derive from "
                     "google::protobuf::Message)"));
  }
  return Encode(*message);
}

absl::StatusOr<Payload> ProtobufSerializer::FromBinary(
    std::string_view bytes, std::string_view manifest) const {
  const google::protobuf::Descriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(
          std::string(manifest));
  const Message* prototype =
      descriptor == nullptr
          ? nullptr
          : google::protobuf::MessageFactory::generated_factory()->GetPrototype(
                descriptor);
  if (prototype == nullptr) {
    return absl::NotFoundError(base::StrCat("no protobuf message type '",
                                            manifest,
                                            "' is linked into this program"));
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return absl::DataLossError(
        base::StrCat("protobuf message ", manifest, " of ", bytes.size(),
                     " bytes exceeds protobuf's 2 GiB limit"));
  }
  std::shared_ptr<Message> message(prototype->New());
  if (!message->ParsePartialFromArray(bytes.data(),
                                      static_cast<int>(bytes.size()))) {
    return absl::DataLossError(
        base::StrCat("the bytes are not a valid protobuf message ", manifest));
  }
  if (!message->IsInitialized()) {
    return absl::DataLossError(base::StrCat(
        "protobuf message ", manifest,
        " is missing required fields: ", message->InitializationErrorString()));
  }
  // The value's type is the generated class; its address is that of its
  // Message base, the class's only (so primary) base, as the generated
  // code declares it: As<that class> and a thrown `const Message*` both
  // read it right.
  const Message& value = *message;
  const std::type_info& type = typeid(value);
  return Payload::Adopt(std::shared_ptr<const void>(std::move(message)), type,
                        &Payload::ThrowAs<Message>);
}

}  // namespace cairn::serialization::internal
