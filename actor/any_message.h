#ifndef CAIRN_ACTOR_ANY_MESSAGE_H_
#define CAIRN_ACTOR_ANY_MESSAGE_H_

#include <memory>
#include <string>
#include <typeinfo>
#include <utility>

#include "actor/internal/payload.h"
#include "actor/internal/type_match.h"

namespace cairn::actor {

// A message of any type, immutable and shared: copying an AnyMessage shares
// the value, it never copies it. Empty when default-constructed.
//
// Thread safety: safe to copy and read from any thread.
class AnyMessage {
 public:
  AnyMessage() = default;

  template <typename T>
  static AnyMessage Of(T value) {
    return AnyMessage(new internal::PayloadOf<std::decay_t<T>>(
        std::in_place, std::move(value)));
  }

  AnyMessage(const AnyMessage& other) : payload_(other.payload_) {
    if (payload_ != nullptr) payload_->AddRef();
  }
  AnyMessage(AnyMessage&& other) noexcept
      : payload_(std::exchange(other.payload_, nullptr)) {}
  AnyMessage& operator=(AnyMessage other) noexcept {
    std::swap(payload_, other.payload_);
    return *this;
  }
  ~AnyMessage() {
    if (payload_ != nullptr) payload_->Release();
  }

  bool empty() const { return payload_ == nullptr; }
  const std::type_info& type() const {
    return payload_ == nullptr ? typeid(void) : payload_->type();
  }

  // The value if it is a T or derives publicly from T; nullptr otherwise.
  template <typename T>
  const T* As() const {
    return payload_ == nullptr ? nullptr : internal::PayloadAs<T>(*payload_);
  }
  template <typename T>
  bool Is() const {
    return As<T>() != nullptr;
  }

  // The demangled type name, for logs and errors.
  std::string TypeName() const;

  // Bridges to other type-erased holders (serialization::Payload, for a
  // transport). A PointerThrower throws its argument as a `const T*`, T
  // being the value's exact type, so a catch clause can test what the
  // value derives from (e.g. google::protobuf::Message).
  using PointerThrower = void (*)(const void* value);
  // The value, shared: the pointer keeps the message alive. Null when
  // empty.
  std::shared_ptr<const void> SharedValue() const;
  // The thrower for the value's type; precondition: not empty.
  PointerThrower pointer_thrower() const { return payload_->pointer_thrower(); }
  // A message of `value` (not null), whose dynamic type must be exactly
  // `type` and which `thrower` throws (nothing checks either). PoisonPill,
  // Kill and Identify so made are taken by the runtime as when sent with
  // Of.
  static AnyMessage Adopt(std::shared_ptr<const void> value,
                          const std::type_info& type, PointerThrower thrower);

  // For the runtime: adopts one reference to `payload`.
  explicit AnyMessage(const internal::Payload* payload) : payload_(payload) {}
  const internal::Payload* payload() const { return payload_; }

 private:
  const internal::Payload* payload_ = nullptr;
};

// The message an actor is processing, borrowed for the length of one call
// (Actor::AroundReceive and what it calls): reading it costs no reference
// count. Share() makes an AnyMessage that outlives the call.
//
// Thread safety: the actor's own thread, during the call it was given to.
class MessageView {
 public:
  // `message` must outlive the view.
  explicit MessageView(const AnyMessage& message)
      : payload_(message.payload()) {}

  const std::type_info& type() const { return payload_->type(); }
  // The value if it is a T or derives publicly from T; nullptr otherwise.
  template <typename T>
  const T* As() const {
    return internal::PayloadAs<T>(*payload_);
  }
  template <typename T>
  bool Is() const {
    return As<T>() != nullptr;
  }
  // The same message, shared (one reference count).
  AnyMessage Share() const {
    payload_->AddRef();
    return AnyMessage(payload_);
  }
  std::string TypeName() const;

  // For the runtime: borrows `payload`.
  explicit MessageView(const internal::Payload& payload) : payload_(&payload) {}
  const internal::Payload& payload() const { return *payload_; }

 private:
  const internal::Payload* payload_;
};

// The demangled name of a type, for logs and errors.
std::string DemangledTypeName(const std::type_info& type);

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ANY_MESSAGE_H_
