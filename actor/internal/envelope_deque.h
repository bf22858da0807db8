#ifndef CAIRN_ACTOR_INTERNAL_ENVELOPE_DEQUE_H_
#define CAIRN_ACTOR_INTERNAL_ENVELOPE_DEQUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "actor/internal/envelope.h"

namespace cairn::actor::internal {

// A deque of envelopes in one ring buffer that costs nothing until first
// used and then grows by doubling from 4 slots: most actors never stash,
// and those that do (a persistent actor holding a command while it
// recovers) mostly hold a few. libstdc++'s std::deque allocated ~600 bytes
// on first use, which 100,000 recovering actors paid each. Does not own
// the envelopes. Not thread-safe (mailbox thread only).
class EnvelopeDeque {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // The oldest envelope out; the deque must not be empty.
  Envelope* PopFront() {
    Envelope* e = slots_[head_];
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
    return e;
  }
  void PushBack(Envelope* e) {
    Reserve(size_ + 1);
    At(size_) = e;
    ++size_;
  }
  void PushFront(Envelope* e) {
    Reserve(size_ + 1);
    head_ = (head_ + capacity_ - 1) & (capacity_ - 1);
    slots_[head_] = e;
    ++size_;
  }
  // Inserts `e` before the envelope at `pos` (pos <= size()).
  void InsertAt(size_t pos, Envelope* e) {
    Reserve(size_ + 1);
    ShiftTail(pos, 1);
    At(pos) = e;
    ++size_;
  }
  // Moves all of `other` before the envelope at `pos` (pos <= size()),
  // keeping their order.
  void InsertAllAt(size_t pos, EnvelopeDeque& other) {
    if (other.empty()) return;
    if (empty()) {  // takes `other`'s ring: one buffer kept, not two
      std::swap(slots_, other.slots_);
      std::swap(capacity_, other.capacity_);
      std::swap(head_, other.head_);
      std::swap(size_, other.size_);
      return;
    }
    const uint32_t n = other.size_;
    Reserve(size_ + n);
    ShiftTail(pos, n);
    for (size_t i = 0; i < n; ++i) At(pos + i) = other.PopFront();
    size_ += n;
  }
  // Moves all of `other` in front of this deque, keeping their order.
  void PrependAll(EnvelopeDeque& other) { InsertAllAt(0, other); }
  // Moves all of `other` behind this deque, keeping their order.
  void AppendAll(EnvelopeDeque& other) { InsertAllAt(size(), other); }
  // Removes every envelope, calling `f` on each in order.
  template <typename F>
  void DrainInto(F&& f) {
    while (!empty()) f(PopFront());
  }
  // Whether `p(envelope)` holds for any envelope held.
  template <typename P>
  bool AnyOf(P&& p) const {
    for (size_t i = 0; i < size_; ++i) {
      if (p(slots_[(head_ + i) & (capacity_ - 1)])) return true;
    }
    return false;
  }

 private:
  Envelope*& At(size_t i) { return slots_[(head_ + i) & (capacity_ - 1)]; }
  // Room for `n` envelopes: the ring doubles (from 4) and is laid out
  // from slot 0 again.
  void Reserve(size_t n) {
    if (n <= capacity_) return;
    uint32_t capacity = capacity_ == 0 ? 4 : capacity_;
    while (capacity < n) capacity *= 2;
    auto slots = std::make_unique<Envelope*[]>(capacity);
    for (size_t i = 0; i < size_; ++i) slots[i] = At(i);
    slots_ = std::move(slots);
    capacity_ = capacity;
    head_ = 0;
  }
  // Moves the envelopes from `pos` on `n` places back (room for n more
  // must be there), leaving a gap of `n` at `pos`.
  void ShiftTail(size_t pos, size_t n) {
    for (size_t i = size_; i > pos; --i) At(i - 1 + n) = At(i - 1);
  }

  // 24 bytes in all: a cell's Stashes hold three.
  std::unique_ptr<Envelope*[]> slots_;
  uint32_t capacity_ = 0;  // a power of two, or 0
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ENVELOPE_DEQUE_H_
