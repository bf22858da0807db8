#ifndef CAIRN_ACTOR_INTERNAL_MESSAGE_QUEUE_H_
#define CAIRN_ACTOR_INTERNAL_MESSAGE_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"
#include "actor/internal/envelope.h"
#include "actor/props.h"
#include "base/mutex.h"

namespace cairn::actor::internal {

// The user-message queue of a mailbox that is not the default lock-free one.
// Owns the envelopes it holds (disposes them when destroyed).
//
// Thread safety: Enqueue and HasMessages from any thread; Dequeue from the
// mailbox's consumer.
class MessageQueue {
 public:
  virtual ~MessageQueue() = default;
  // Takes ownership when it returns true; false means "full", and the caller
  // still owns `envelope` (it goes to dead letters). `from_itself`: the
  // actor sends it to itself while it runs, on its own thread, which must
  // not wait for room that only it can make.
  virtual bool Enqueue(Envelope* envelope, bool from_itself) = 0;
  virtual Envelope* Dequeue() = 0;
  virtual bool HasMessages() const = 0;
};

// At most `capacity` messages; a sender waits up to `push_timeout` for room.
// The actor itself does not: a message it sends itself while it runs is
// queued at once, beyond the capacity if need be (waiting, it would wait
// for itself until the timeout and then lose the message; a persistent
// actor's write reply comes that way, issue 35).
class BoundedMessageQueue final : public MessageQueue {
 public:
  BoundedMessageQueue(int capacity, absl::Duration push_timeout)
      : capacity_(capacity < 1 ? 1 : capacity), push_timeout_(push_timeout) {}
  ~BoundedMessageQueue() override;

  bool Enqueue(Envelope* envelope, bool from_itself) override;
  Envelope* Dequeue() override;
  bool HasMessages() const override {
    return size_.load(std::memory_order_seq_cst) > 0;
  }

 private:
  const size_t capacity_;
  const absl::Duration push_timeout_;
  base::Mutex mu_;
  base::CondVar not_full_;
  std::deque<Envelope*> queue_ ABSL_GUARDED_BY(mu_);
  std::atomic<size_t> size_{0};
};

// Unbounded, ordered by a user priority (lower first), FIFO among equals.
class PriorityMessageQueue final : public MessageQueue {
 public:
  explicit PriorityMessageQueue(PriorityFunction priority)
      : priority_(std::move(priority)) {}
  ~PriorityMessageQueue() override;

  bool Enqueue(Envelope* envelope, bool from_itself) override;
  Envelope* Dequeue() override;
  bool HasMessages() const override {
    return size_.load(std::memory_order_seq_cst) > 0;
  }

 private:
  struct Item {
    int priority;
    uint64_t seq;
    Envelope* envelope;
    bool operator>(const Item& o) const {
      return priority != o.priority ? priority > o.priority : seq > o.seq;
    }
  };

  PriorityFunction priority_;
  base::Mutex mu_;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue_
      ABSL_GUARDED_BY(mu_);
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<size_t> size_{0};
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_MESSAGE_QUEUE_H_
