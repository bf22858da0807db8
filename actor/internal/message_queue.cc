#include "actor/internal/message_queue.h"

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/timer_scheduler.h"
#include "base/mutex.h"

namespace cairn::actor::internal {

BoundedMessageQueue::~BoundedMessageQueue() {
  for (Envelope* e : queue_) e->Dispose();
}

bool BoundedMessageQueue::Enqueue(Envelope* envelope, bool from_itself) {
  const absl::Time deadline = absl::Now() + push_timeout_;
  base::MutexLock lock(&mu_);
  while (!from_itself && queue_.size() >= capacity_) {
    if (push_timeout_ <= absl::ZeroDuration()) return false;
    if (not_full_.WaitWithDeadline(&mu_, deadline) &&
        queue_.size() >= capacity_) {
      return false;
    }
  }
  queue_.push_back(envelope);
  size_.store(queue_.size(), std::memory_order_seq_cst);
  return true;
}

Envelope* BoundedMessageQueue::Dequeue() {
  Envelope* e = nullptr;
  {
    base::MutexLock lock(&mu_);
    if (queue_.empty()) return nullptr;
    e = queue_.front();
    queue_.pop_front();
    size_.store(queue_.size(), std::memory_order_seq_cst);
  }
  not_full_.Signal();
  return e;
}

PriorityMessageQueue::~PriorityMessageQueue() {
  while (!queue_.empty()) {
    queue_.top().envelope->Dispose();
    queue_.pop();
  }
}

bool PriorityMessageQueue::Enqueue(Envelope* envelope, bool /*from_itself*/) {
  const Payload* p = &envelope->payload();
  // A timer's message is ranked as the message it carries: the priority
  // function knows the user's types, not the runtime's wrapper.
  if (p->runtime_message() && p->type() == typeid(TimerMessage)) {
    p = static_cast<const PayloadOf<TimerMessage>*>(p)
            ->value()
            .message.payload();
  }
  p->AddRef();
  int priority = priority_(AnyMessage(p));
  base::MutexLock lock(&mu_);
  queue_.push(Item{priority, next_seq_++, envelope});
  size_.store(queue_.size(), std::memory_order_seq_cst);
  return true;
}

Envelope* PriorityMessageQueue::Dequeue() {
  base::MutexLock lock(&mu_);
  if (queue_.empty()) return nullptr;
  Envelope* e = queue_.top().envelope;
  queue_.pop();
  size_.store(queue_.size(), std::memory_order_seq_cst);
  return e;
}

}  // namespace cairn::actor::internal
