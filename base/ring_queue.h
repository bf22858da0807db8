#ifndef CAIRN_BASE_RING_QUEUE_H_
#define CAIRN_BASE_RING_QUEUE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace cairn::base {

// A first-in first-out queue in one ring buffer that allocates nothing
// until the first push and doubles when full. For queues that every one of
// many objects has and that are mostly empty: libstdc++'s std::deque
// allocates a 64-byte map and a 512-byte block when it is constructed,
// which 100,000 persistent actors pay whether they ever queue or not.
//
// T must be default-constructible and movable. A value type;
// thread-compatible.
template <typename T>
class RingQueue {
 public:
  RingQueue() = default;
  // The moved-from queue is empty.
  RingQueue(RingQueue&& other) noexcept
      : slots_(std::move(other.slots_)),
        capacity_(std::exchange(other.capacity_, 0)),
        head_(std::exchange(other.head_, 0)),
        size_(std::exchange(other.size_, 0)) {}
  RingQueue& operator=(RingQueue&& other) noexcept {
    slots_ = std::move(other.slots_);
    capacity_ = std::exchange(other.capacity_, 0);
    head_ = std::exchange(other.head_, 0);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // The oldest element; the queue must not be empty.
  T& front() { return slots_[head_]; }

  void push_back(T value) {
    if (size_ == capacity_) Grow();
    slots_[(head_ + size_) & (capacity_ - 1)] = std::move(value);
    ++size_;
  }
  // Removes the oldest element; the queue must not be empty.
  void pop_front() {
    slots_[head_] = T();  // releases what it holds now, not when reused
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }
  // Removes every element; keeps the buffer.
  void clear() {
    while (!empty()) pop_front();
  }

 private:
  void Grow() {
    const uint32_t capacity = capacity_ == 0 ? 4 : capacity_ * 2;
    auto slots = std::make_unique<T[]>(capacity);
    for (std::size_t i = 0; i < size_; ++i) {
      slots[i] = std::move(slots_[(head_ + i) & (capacity_ - 1)]);
    }
    slots_ = std::move(slots);
    capacity_ = capacity;
    head_ = 0;
  }

  std::unique_ptr<T[]> slots_;
  // 32 bits: the queue is in many objects (24 bytes in all, not 32).
  uint32_t capacity_ = 0;  // a power of two, or 0
  uint32_t head_ = 0;
  uint32_t size_ = 0;
};

}  // namespace cairn::base

#endif  // CAIRN_BASE_RING_QUEUE_H_
