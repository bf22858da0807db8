// The runtime's stash deque (actor/internal/envelope_deque.h) against
// std::deque, over random operations that wrap its ring around and make it
// grow while wrapped: what the stash, the internal stash and unstashing
// rely on, each envelope kept in its place.
#include "actor/internal/envelope_deque.h"

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace cairn::actor::internal {
namespace {

// Envelopes are only stored and compared, never used: addresses in an
// array stand in for them.
class Envelopes {
 public:
  Envelope* Get(int i) { return reinterpret_cast<Envelope*>(&slots_[i]); }
  int Index(const Envelope* e) {
    return static_cast<int>(reinterpret_cast<const int64_t*>(e) - slots_);
  }

 private:
  int64_t slots_[100000] = {};
};

std::vector<int> Drain(EnvelopeDeque& d, Envelopes& envelopes) {
  std::vector<int> out;
  d.DrainInto([&](Envelope* e) { out.push_back(envelopes.Index(e)); });
  return out;
}

TEST(EnvelopeDequeTest, MatchesStdDequeOverRandomOperations) {
  static Envelopes envelopes;
  std::mt19937 random(42);
  EnvelopeDeque d, other;
  std::deque<int> model, other_model;
  int next = 0;
  for (int step = 0; step < 20000; ++step) {
    switch (random() % 6) {
      case 0:
        d.PushBack(envelopes.Get(next));
        model.push_back(next++);
        break;
      case 1:
        d.PushFront(envelopes.Get(next));
        model.push_front(next++);
        break;
      case 2:
      case 3:
        if (!model.empty()) {
          ASSERT_EQ(envelopes.Index(d.PopFront()), model.front());
          model.pop_front();
        }
        break;
      case 4: {
        const size_t pos = random() % (model.size() + 1);
        d.InsertAt(pos, envelopes.Get(next));
        model.insert(model.begin() + pos, next++);
        break;
      }
      case 5: {
        // Fill `other` (wrapped too, by a pop first), then move it in.
        const int n = static_cast<int>(random() % 6);
        for (int i = 0; i < n; ++i) {
          other.PushBack(envelopes.Get(next));
          other_model.push_back(next++);
        }
        if (!other_model.empty() && random() % 2 == 0) {
          other.PopFront();
          other_model.pop_front();
        }
        const size_t pos = random() % (model.size() + 1);
        d.InsertAllAt(pos, other);
        model.insert(model.begin() + pos, other_model.begin(),
                     other_model.end());
        other_model.clear();
        ASSERT_TRUE(other.empty());
        break;
      }
    }
    ASSERT_EQ(d.size(), model.size());
    ASSERT_LT(next, 100000);
  }
  EXPECT_EQ(Drain(d, envelopes), std::vector<int>(model.begin(), model.end()));
  EXPECT_TRUE(d.empty());
}

TEST(EnvelopeDequeTest, PrependAndAppendAllKeepOrder) {
  static Envelopes envelopes;
  EnvelopeDeque d, front, back;
  d.PushBack(envelopes.Get(2));
  front.PushBack(envelopes.Get(0));
  front.PushBack(envelopes.Get(1));
  back.PushBack(envelopes.Get(3));
  d.PrependAll(front);
  d.AppendAll(back);
  EXPECT_EQ(Drain(d, envelopes), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(front.empty());
  EXPECT_TRUE(back.empty());
}

}  // namespace
}  // namespace cairn::actor::internal
