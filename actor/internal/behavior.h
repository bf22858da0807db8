#ifndef CAIRN_ACTOR_INTERNAL_BEHAVIOR_H_
#define CAIRN_ACTOR_INTERNAL_BEHAVIOR_H_

#include <cstdint>
#include <functional>
#include <new>
#include <typeinfo>
#include <utility>

#include "actor/internal/payload.h"

// An actor's handlers. Outside class Actor, so that their names never hide
// a user's own types of the same name inside an actor's code.
namespace cairn::actor::internal {

// Returns whether the handler took the message.
using Handler = std::function<bool(const Payload&)>;

// One Receive<T> (or ReceiveAny): which messages it is for, and the code.
class HandlerEntry {
 public:
  // `type` nullptr: every message. `base_match`: also types derived from
  // *type (only for polymorphic, non-final T).
  HandlerEntry(const std::type_info* type, bool base_match, Handler handler)
      : type_(reinterpret_cast<uintptr_t>(type) | (base_match ? 1 : 0)),
        handler_(std::move(handler)) {}

  // False when the handler is certainly not for messages of `type`; a
  // handler that takes derived types checks derivation itself.
  bool MayTake(const std::type_info& type) const {
    if (type_ == 0 || (type_ & 1) != 0) return true;
    const auto* mine = reinterpret_cast<const std::type_info*>(type_);
    return mine == &type || *mine == type;
  }
  bool operator()(const Payload& payload) { return handler_(payload); }

 private:
  // The type_info's address (aligned, so its low bit is free), with the low
  // bit set when derived types match too; 0 for every message.
  uintptr_t type_;
  Handler handler_;
};

// The handlers of one behaviour, in declaration order. A vector with 32-bit
// size and capacity: every actor has one, so its size is paid per actor.
// Moving a Behavior keeps its array where it is, so a handler that calls
// Become can go on running from the array it was found in.
//
// Not thread-safe (the actor's own thread only).
class Behavior {
 public:
  Behavior() = default;
  Behavior(Behavior&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  Behavior& operator=(Behavior&& other) noexcept {
    Behavior old(std::move(*this));
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }
  ~Behavior() {
    for (uint32_t i = 0; i < size_; ++i) data_[i].~HandlerEntry();
    ::operator delete(data_);
  }

  void Add(HandlerEntry entry) {
    if (size_ == capacity_) Grow();
    new (data_ + size_) HandlerEntry(std::move(entry));
    ++size_;
  }
  // Gives back the room the doubling left unused, once the handlers are
  // declared (an actor declaring 9 would keep 16 slots). Not while a
  // handler of this behaviour runs: it moves the array.
  void ShrinkToFit() {
    if (size_ < capacity_) Reallocate(size_);
  }
  HandlerEntry* begin() { return data_; }
  HandlerEntry* end() { return data_ + size_; }

 private:
  void Grow() { Reallocate(capacity_ == 0 ? 1 : capacity_ * 2); }
  void Reallocate(uint32_t capacity) {
    auto* data = capacity == 0 ? nullptr
                               : static_cast<HandlerEntry*>(::operator new(
                                     sizeof(HandlerEntry) * capacity));
    for (uint32_t i = 0; i < size_; ++i) {
      new (data + i) HandlerEntry(std::move(data_[i]));
      data_[i].~HandlerEntry();
    }
    ::operator delete(data_);
    data_ = data;
    capacity_ = capacity;
  }

  HandlerEntry* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_BEHAVIOR_H_
