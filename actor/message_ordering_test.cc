// Delivery guarantees: per sender-receiver ordering and no lost message.
#include <atomic>
#include <thread>
#include <vector>

#include "actor/actor_system.h"
#include "actor/testkit/test_kit.h"
#include "gtest/gtest.h"

namespace cairn::actor {
namespace {

using testkit::TestKit;

struct Numbered {
  int sender;
  int64_t seq;
};
struct Report {};
struct Totals {
  int64_t received;
  int64_t out_of_order;
};

// Checks that each sender's numbers arrive as 0, 1, 2, ...
class OrderChecker final : public Actor {
 public:
  explicit OrderChecker(int senders) : next_(senders, 0) {
    Receive<Numbered>([this](const Numbered& m) {
      if (m.seq != next_[m.sender]) ++out_of_order_;
      next_[m.sender] = m.seq + 1;
      ++received_;
    });
    Receive<Report>([this](const Report&) {
      Sender().Tell(Totals{received_, out_of_order_});
    });
  }

 private:
  std::vector<int64_t> next_;
  int64_t received_ = 0;
  int64_t out_of_order_ = 0;
};

TEST(MessageOrderingTest,
     EightThreadsTimesOneMillionNothingLostNothingReordered) {
  TestKit kit;
  constexpr int kSenders = 8;
  constexpr int64_t kPerSender = 1'000'000;
  ActorRef checker = kit.Sys().ActorOf(Props::Create<OrderChecker>(kSenders));
  std::vector<std::thread> threads;
  for (int s = 0; s < kSenders; ++s) {
    threads.emplace_back([&, s] {
      for (int64_t i = 0; i < kPerSender; ++i) {
        checker.Tell(Numbered{s, i}, ActorRef());
      }
    });
  }
  for (auto& t : threads) t.join();
  // Report is queued behind every Numbered from this thread's view only;
  // the other threads have joined, so their messages are all queued too.
  checker.Tell(Report{});
  Totals totals = kit.ExpectMsg<Totals>(absl::Seconds(120));
  EXPECT_EQ(totals.received, kSenders * kPerSender);
  EXPECT_EQ(totals.out_of_order, 0);
}

// An actor that sends numbered messages to a target when told to start.
class NumberSender final : public Actor {
 public:
  NumberSender(int id, int64_t count) : id_(id), count_(count) {
    Receive<ActorRef>([this](const ActorRef& target) {
      for (int64_t i = 0; i < count_; ++i) target.Tell(Numbered{id_, i});
      Sender().Tell(id_);
    });
  }

 private:
  int id_;
  int64_t count_;
};

TEST(MessageOrderingTest, ActorsSendingConcurrentlyKeepPerPairOrder) {
  TestKit kit;
  constexpr int kSenders = 16;
  constexpr int64_t kEach = 20'000;
  ActorRef checker = kit.Sys().ActorOf(Props::Create<OrderChecker>(kSenders));
  for (int s = 0; s < kSenders; ++s) {
    kit.Sys().ActorOf(Props::Create<NumberSender>(s, kEach)).Tell(checker);
  }
  for (int s = 0; s < kSenders; ++s) kit.ExpectMsg<int>(absl::Seconds(60));
  checker.Tell(Report{});
  Totals totals = kit.ExpectMsg<Totals>(absl::Seconds(60));
  EXPECT_EQ(totals.received, kSenders * kEach);
  EXPECT_EQ(totals.out_of_order, 0);
}

// Ping-pong between many pairs at once exercises scheduling hand-offs.
struct Ball {
  int64_t remaining;
};

class Player final : public Actor {
 public:
  explicit Player(ActorRef done) : done_(std::move(done)) {
    Receive<Ball>([this](const Ball& b) {
      if (b.remaining == 0) {
        done_.Tell(1);
      } else {
        Sender().Tell(Ball{b.remaining - 1});
      }
    });
  }

 private:
  ActorRef done_;
};

TEST(MessageOrderingTest, ManyPingPongPairsAllFinish) {
  TestKit kit;
  constexpr int kPairs = 64;
  for (int i = 0; i < kPairs; ++i) {
    ActorRef a = kit.Sys().ActorOf(Props::Create<Player>(kit.TestActor()));
    ActorRef b = kit.Sys().ActorOf(Props::Create<Player>(kit.TestActor()));
    a.Tell(Ball{10'000}, b);
  }
  for (int i = 0; i < kPairs; ++i) kit.ExpectMsg<int>(absl::Seconds(60));
}

}  // namespace
}  // namespace cairn::actor
