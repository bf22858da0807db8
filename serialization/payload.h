#ifndef CAIRN_SERIALIZATION_PAYLOAD_H_
#define CAIRN_SERIALIZATION_PAYLOAD_H_

#include <cstdlib>
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
// bound to exact types too. Whether the value derives from a base class is
// asked with ThrowPointer. Default-constructed, it is empty and its type()
// is `void`.
//
// Thread safety: safe to copy and read from any thread.
class Payload {
 public:
  // Throws a pointer to the value it is given, typed as the value's class
  // (ThrowPointer). A plain function pointer, so a Payload stays a shared
  // pointer and two words, with nothing allocated for it.
  using ThrowPointerFn = void (*)(const void* value);

  // The ThrowPointerFn of a value whose type is T: throws a `const T*`.
  template <typename T>
  [[noreturn]] static void ThrowAs(const void* value) {
    throw static_cast<const T*>(value);
  }

  Payload() = default;

  template <typename T>
  static Payload Of(T value) {
    using V = std::decay_t<T>;
    return Payload(std::make_shared<const V>(std::move(value)), typeid(V),
                   &ThrowAs<V>);
  }

  // Shares `value` without copying it. `value` must not be null.
  template <typename T>
  static Payload FromShared(std::shared_ptr<const T> value) {
    return Payload(std::move(value), typeid(T), &ThrowAs<T>);
  }

  // For bridging other type-erased holders (the actor runtime's messages,
  // a decoded protobuf message): `value` must point to an object whose
  // dynamic type is exactly `type`, and `throw_pointer` (not null) must
  // throw a pointer to that object as a class it is or derives from
  // (ThrowAs<T> for a T, or for a base of it when only that is known).
  // Nothing checks this; a wrong type makes As<T>() return a bad pointer.
  static Payload Adopt(std::shared_ptr<const void> value,
                       const std::type_info& type,
                       ThrowPointerFn throw_pointer) {
    return Payload(std::move(value), type, throw_pointer);
  }

  // The value if it is exactly a T; nullptr otherwise (and when empty).
  template <typename T>
  const T* As() const {
    if (value_ == nullptr || *type_ != typeid(T)) {
      return nullptr;
    }
    return static_cast<const T*>(value_.get());
  }

  bool empty() const { return value_ == nullptr; }
  std::type_index type() const { return *type_; }
  // The same, for holders that keep a std::type_info (as AnyMessage).
  const std::type_info& type_info() const { return *type_; }
  // What ThrowPointer calls, for handing the value to another holder
  // (AnyMessage::Adopt).
  ThrowPointerFn pointer_thrower() const { return throw_pointer_; }

  // The shared, type-erased value (null when empty), e.g. for Adopt.
  const std::shared_ptr<const void>& shared() const { return value_; }

  // The demangled type name, for error messages.
  std::string TypeName() const;

  // Throws a pointer to the value: a `const T*` for Of<T> and FromShared<T>,
  // whatever Adopt was given otherwise. A catch clause then tells whether
  // the value's class is or derives from another, without reflection:
  //   try { p.ThrowPointer(); } catch (const Base* b) { ... } catch (...) {}
  // Throwing costs microseconds: cache the answer per type() (the
  // registry does, serialization.h). Precondition: !empty() (an empty
  // payload throws a null `const void*`, which only `catch (...)` and
  // `catch (const void*)` match).
  [[noreturn]] void ThrowPointer() const {
    throw_pointer_(value_.get());
    std::abort();  // a ThrowPointerFn that returned broke Adopt's contract
  }

 private:
  Payload(std::shared_ptr<const void> value, const std::type_info& type,
          ThrowPointerFn throw_pointer)
      : value_(std::move(value)), type_(&type), throw_pointer_(throw_pointer) {}

  std::shared_ptr<const void> value_;
  const std::type_info* type_ = &typeid(void);
  ThrowPointerFn throw_pointer_ = &ThrowAs<void>;
};

}  // namespace cairn::serialization

#endif  // CAIRN_SERIALIZATION_PAYLOAD_H_
