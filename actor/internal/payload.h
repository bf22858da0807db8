#ifndef CAIRN_ACTOR_INTERNAL_PAYLOAD_H_
#define CAIRN_ACTOR_INTERNAL_PAYLOAD_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "actor/control_message.h"

namespace cairn::actor::internal {

// True for the messages the runtime takes before the actor's handlers
// (PoisonPill, Kill, Identify, Terminated, ...): each such type specializes
// it to true right after its definition, so every use of the type sees it.
// Every other message then skips the runtime's checks with one test of a
// flag, instead of a type_info comparison per runtime message (a strcmp
// each with GCC's type_info when the types differ).
template <typename T>
inline constexpr bool kRuntimeMessage = false;

// An immutable, reference-counted, type-erased message value.
// Thread safety: immutable after construction; AddRef/Release from any thread.
class Payload {
 public:
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;

  const std::type_info& type() const { return *type_; }
  const void* raw() const { return raw_; }
  bool runtime_message() const { return runtime_message_; }
  bool control_message() const { return control_message_; }

  void AddRef() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Release() const {
    // The sole owner (the common case: a message read once) skips the
    // atomic read-modify-write.
    if (refs_.load(std::memory_order_acquire) == 1 ||
        refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      delete this;
    }
  }

  // Throws a `const T*` to the value, so a catch clause can test whether the
  // value's type derives from another (see PayloadAs in type_match.h).
  [[noreturn]] void ThrowPointer() const {
    pointer_thrower()(raw_);
    __builtin_unreachable();
  }
  // A function throwing a `const void*` value as a `const T*` (T the
  // value's type), for bridges (AnyMessage::PointerThrower).
  virtual void (*pointer_thrower() const)(const void*) = 0;

 protected:
  Payload(const std::type_info& type, const void* raw, bool runtime_message,
          bool control_message = false)
      : runtime_message_(runtime_message),
        control_message_(control_message),
        type_(&type),
        raw_(raw) {}
  virtual ~Payload() = default;

 private:
  mutable std::atomic<int32_t> refs_{1};
  const bool runtime_message_;  // these two in what would be padding
  const bool control_message_;
  const std::type_info* type_;
  const void* raw_;
};

template <typename T>
class PayloadOf : public Payload {
 public:
  template <typename... Args>
  explicit PayloadOf(std::in_place_t, Args&&... args)
      : Payload(typeid(T), &value_, kRuntimeMessage<T>,
                actor::kControlMessage<T>),
        value_(std::forward<Args>(args)...) {}

  const T& value() const { return value_; }
  void (*pointer_thrower() const)(const void*) override { return &Throw; }

  [[noreturn]] static void Throw(const void* value) {
    throw static_cast<const T*>(value);
  }

 private:
  const T value_;
};

// A value shared with another holder (AnyMessage::Adopt).
class SharedPayload final : public Payload {
 public:
  SharedPayload(std::shared_ptr<const void> value, const std::type_info& type,
                void (*thrower)(const void*), bool runtime_message)
      : Payload(type, value.get(), runtime_message),
        value_(std::move(value)),
        thrower_(thrower) {}

  const std::shared_ptr<const void>& shared() const { return value_; }
  void (*pointer_thrower() const)(const void*) override { return thrower_; }

 private:
  const std::shared_ptr<const void> value_;
  void (*const thrower_)(const void*);
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_PAYLOAD_H_
