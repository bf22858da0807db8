#ifndef CAIRN_ACTOR_INTERNAL_MPSC_QUEUE_H_
#define CAIRN_ACTOR_INTERNAL_MPSC_QUEUE_H_

#include <atomic>

namespace cairn::actor::internal {

// A node of an intrusive queue. A node is in at most one queue at a time.
struct MpscNode {
  std::atomic<MpscNode*> next{nullptr};
};

// Dmitry Vyukov's intrusive multi-producer single-consumer queue.
// Push is one atomic exchange (wait-free, no lock on the send path).
//
// Thread safety: Push from any thread; Pop and Empty only from the single
// consumer (the thread running the mailbox). The queue does not own nodes.
class MpscQueue {
 public:
  MpscQueue() : head_(&sentinel_), tail_(&sentinel_) {}
  MpscQueue(const MpscQueue&) = delete;
  MpscQueue& operator=(const MpscQueue&) = delete;

  void Push(MpscNode* node) {
    node->next.store(nullptr, std::memory_order_relaxed);
    // seq_cst pairs with the consumer's "am I still scheduled" check: either
    // the consumer sees this node, or the producer sees the idle mailbox.
    MpscNode* prev = head_.exchange(node, std::memory_order_seq_cst);
    prev->next.store(node, std::memory_order_release);
  }

  // Returns the oldest node, or nullptr when the queue is empty or a producer
  // is between its two steps of Push (then Empty() is false: try again soon).
  MpscNode* Pop() {
    MpscNode* tail = tail_;
    MpscNode* next = tail->next.load(std::memory_order_acquire);
    if (tail == &sentinel_) {
      if (next == nullptr) return nullptr;
      tail_ = next;
      tail = next;
      next = next->next.load(std::memory_order_acquire);
    }
    if (next != nullptr) {
      tail_ = next;
      return tail;
    }
    if (tail != head_.load(std::memory_order_acquire)) return nullptr;
    Push(&sentinel_);
    next = tail->next.load(std::memory_order_acquire);
    if (next != nullptr) {
      tail_ = next;
      return tail;
    }
    return nullptr;
  }

  // Consumer only. False as soon as any Push has begun.
  bool Empty() const { return ConsumerSideEmpty() && !PushedSinceEmpty(); }

  // Consumer only: no node is waiting at the consumer's end.
  bool ConsumerSideEmpty() const { return tail_ == &sentinel_; }
  // Any thread: a Push has begun since the queue was last empty. Together
  // with a ConsumerSideEmpty() read earlier by the consumer, this tells a
  // consumer that has already given up the queue whether to take it back.
  bool PushedSinceEmpty() const {
    return head_.load(std::memory_order_seq_cst) != &sentinel_;
  }

 private:
  std::atomic<MpscNode*> head_;  // most recently pushed
  MpscNode* tail_;               // next to pop (consumer only)
  MpscNode sentinel_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_MPSC_QUEUE_H_
