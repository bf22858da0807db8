#ifndef CAIRN_ACTOR_INTERNAL_PAYLOAD_H_
#define CAIRN_ACTOR_INTERNAL_PAYLOAD_H_

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <typeinfo>
#include <utility>

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
  // value's type derives from another (see IsA in type_match.h).
  [[noreturn]] virtual void ThrowPointer() const = 0;

 protected:
  Payload(const std::type_info& type, const void* raw, bool runtime_message)
      : runtime_message_(runtime_message), type_(&type), raw_(raw) {}
  virtual ~Payload() = default;

 private:
  mutable std::atomic<int32_t> refs_{1};
  const bool runtime_message_;  // in what would be padding
  const std::type_info* type_;
  const void* raw_;
};

template <typename T>
class PayloadOf : public Payload {
 public:
  template <typename... Args>
  explicit PayloadOf(std::in_place_t, Args&&... args)
      : Payload(typeid(T), &value_, kRuntimeMessage<T>),
        value_(std::forward<Args>(args)...) {}

  const T& value() const { return value_; }
  [[noreturn]] void ThrowPointer() const override { throw &value_; }

 private:
  const T value_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_PAYLOAD_H_
