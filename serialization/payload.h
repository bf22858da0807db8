#ifndef CAIRN_SERIALIZATION_PAYLOAD_H_
#define CAIRN_SERIALIZATION_PAYLOAD_H_

#include <memory>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>

#include "base/demangle.h"

namespace cairn::serialization {

// An immutable value of any type: a message, an event or a snapshot on its
// way to or from bytes. Copying a Payload shares the value, it never copies it.
// Matching is by exact type (no derived-to-base lookup): serializers are
// bound to exact types too. Default-constructed, it is empty and its type()
// is `void`.
//
// Thread safety: safe to copy and read from any thread.
class Payload {
 public:
  Payload() = default;

  template <typename T>
  static Payload Of(T value) {
    using V = std::decay_t<T>;
    return Payload(std::make_shared<const V>(std::move(value)), typeid(V));
  }

  // Shares `value` without copying it. `value` must not be null.
  template <typename T>
  static Payload FromShared(std::shared_ptr<const T> value) {
    return Payload(std::move(value), typeid(T));
  }

  // For bridging other type-erased holders (the actor runtime's messages):
  // `value` must point to an object whose dynamic type is exactly `type`.
  // Nothing checks this; a wrong type makes As<T>() return a bad pointer.
  static Payload Adopt(std::shared_ptr<const void> value,
                       std::type_index type) {
    return Payload(std::move(value), type);
  }

  // The value if it is exactly a T; nullptr otherwise (and when empty).
  template <typename T>
  const T* As() const {
    if (value_ == nullptr || type_ != std::type_index(typeid(T))) {
      return nullptr;
    }
    return static_cast<const T*>(value_.get());
  }

  bool empty() const { return value_ == nullptr; }
  std::type_index type() const { return type_; }

  // The shared, type-erased value (null when empty), e.g. for Adopt.
  const std::shared_ptr<const void>& shared() const { return value_; }

  // The demangled type name, for error messages.
  std::string TypeName() const;

 private:
  Payload(std::shared_ptr<const void> value, std::type_index type)
      : value_(std::move(value)), type_(type) {}

  std::shared_ptr<const void> value_;
  std::type_index type_ = typeid(void);
};

}  // namespace cairn::serialization

#endif  // CAIRN_SERIALIZATION_PAYLOAD_H_
