#ifndef CAIRN_ACTOR_INTERNAL_ENVELOPE_DEQUE_H_
#define CAIRN_ACTOR_INTERNAL_ENVELOPE_DEQUE_H_

#include <cstddef>
#include <deque>
#include <memory>

#include "actor/internal/envelope.h"

namespace cairn::actor::internal {

// A deque of envelopes that costs one pointer until first used: most actors
// never stash, and libstdc++'s std::deque allocates ~600 bytes up front.
// Does not own the envelopes. Not thread-safe (mailbox thread only).
class EnvelopeDeque {
 public:
  bool empty() const { return d_ == nullptr || d_->empty(); }
  size_t size() const { return d_ == nullptr ? 0 : d_->size(); }
  Envelope* PopFront() {
    Envelope* e = d_->front();
    d_->pop_front();
    return e;
  }
  void PushBack(Envelope* e) { Get().push_back(e); }
  void PushFront(Envelope* e) { Get().push_front(e); }
  // Inserts `e` before the envelope at `pos` (pos <= size()).
  void InsertAt(size_t pos, Envelope* e) { Get().insert(d_->begin() + pos, e); }
  // Moves all of `other` before the envelope at `pos` (pos <= size()),
  // keeping their order.
  void InsertAllAt(size_t pos, EnvelopeDeque& other) {
    if (other.empty()) return;
    Get().insert(d_->begin() + pos, other.d_->begin(), other.d_->end());
    other.d_->clear();
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

 private:
  std::deque<Envelope*>& Get() {
    if (d_ == nullptr) d_ = std::make_unique<std::deque<Envelope*>>();
    return *d_;
  }
  std::unique_ptr<std::deque<Envelope*>> d_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ENVELOPE_DEQUE_H_
