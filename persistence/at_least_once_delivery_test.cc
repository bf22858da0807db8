// AtLeastOnceDelivery: the scenarios of Akka's AtLeastOnceDeliverySpec, on
// the in-memory plugins and a ManualClock (redelivery happens only when the
// test moves time).

#include "persistence/at_least_once_delivery.h"

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/clock.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "gtest/gtest.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;

constexpr char kConfig[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
  akka.persistence.at-least-once-delivery {
    redeliver-interval = 1s
    redelivery-burst-limit = 100
    warn-after-number-of-unconfirmed-attempts = 3
    max-unconfirmed-messages = 1000
  }
)";

struct Req {
  std::string text;
};
struct Msg {
  int64_t delivery_id;
  std::string text;
};
struct Confirm {
  int64_t delivery_id;
};
struct Boom {};
struct DeliverNow {
  std::string text;
};
struct GetSnapshot {};
struct Restore {
  AtLeastOnceDeliverySnapshot snapshot;
};

// Persists "s:<text>" for a request and "c:<id>" for a confirmation;
// delivers and confirms from the event handlers, so replay rebuilds the
// unconfirmed set.
class Deliverer final : public AtLeastOnceDelivery {
 public:
  Deliverer(std::string id, ActorRef destination, ActorRef probe)
      : id_(std::move(id)),
        destination_(std::move(destination)),
        probe_(std::move(probe)) {
    Recover<std::string>([this](const std::string& e) { Apply(e); });
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(RecoveryCompleted{}); });
    Command<Req>([this](const Req& r) {
      Persist("s:" + r.text, [this](const std::string& e) {
        Apply(e);
        Sender().Tell(std::string("accepted"));
      });
    });
    Command<Confirm>([this](const Confirm& c) {
      Persist(absl::StrCat("c:", c.delivery_id),
              [this](const std::string& e) { Apply(e); });
    });
    // Not persisted: to see Deliver's limit from a command handler.
    Command<DeliverNow>([this](const DeliverNow& d) {
      try {
        Deliver(destination_, [&](int64_t id) { return Msg{id, d.text}; });
        Sender().Tell(std::string("delivered"));
      } catch (const MaxUnconfirmedMessagesExceededException& e) {
        Sender().Tell(std::string("refused: ") + e.what());
      }
    });
    Command<UnconfirmedWarning>(
        [this](const UnconfirmedWarning& w) { probe_.Tell(w); });
    Command<Boom>(
        [](const Boom&) -> void { throw std::runtime_error("boom"); });
    Command<GetSnapshot>(
        [this](const GetSnapshot&) { Sender().Tell(GetDeliverySnapshot()); });
    Command<Restore>([this](const Restore& r) {
      SetDeliverySnapshot(r.snapshot);
      Sender().Tell(NumberOfUnconfirmed());
    });
  }
  std::string PersistenceId() const override { return id_; }

 private:
  void Apply(const std::string& e) {
    if (e.rfind("s:", 0) == 0) {
      std::string text = e.substr(2);
      Deliver(destination_, [&](int64_t id) { return Msg{id, text}; });
    } else {
      int64_t id = 0;
      if (absl::SimpleAtoi(e.substr(2), &id)) ConfirmDelivery(id);
    }
  }

  std::string id_;
  ActorRef destination_;
  ActorRef probe_;
};

// What destinations saw, for AwaitCondition (the counts are not messages).
struct Seen {
  base::Mutex mu;
  // Every arrival, duplicates included.
  std::vector<std::string> texts ABSL_GUARDED_BY(mu);
  std::set<std::string> unique ABSL_GUARDED_BY(mu);
  size_t Unique() {
    base::MutexLock lock(&mu);
    return unique.size();
  }
  size_t Arrivals() {
    base::MutexLock lock(&mu);
    return texts.size();
  }
};

// Records and confirms (or, with confirm = false, only records).
class Destination final : public actor::Actor {
 public:
  Destination(std::shared_ptr<Seen> seen, bool confirm)
      : seen_(std::move(seen)) {
    Receive<Msg>([this, confirm](const Msg& m) {
      {
        base::MutexLock lock(&seen_->mu);
        seen_->texts.push_back(m.text);
        seen_->unique.insert(m.text);
      }
      if (confirm) Sender().Tell(Confirm{m.delivery_id});
    });
  }

 private:
  std::shared_ptr<Seen> seen_;
};

// Drops every `n`th message, forwards the rest with their sender.
class Unreliable final : public actor::Actor {
 public:
  Unreliable(int n, ActorRef target) {
    Receive<Msg>([this, n, target](const Msg& m) {
      if (++count_ % n == 0) return;
      target.Forward(m);
    });
  }

 private:
  int count_ = 0;
};

class AtLeastOnceDeliveryTest : public ::testing::Test {
 protected:
  AtLeastOnceDeliveryTest() : kit_(kConfig, &clock_) {}

  ActorRef StartSender(const std::string& id, const ActorRef& destination) {
    ActorRef s = kit_.Sys().ActorOf(
        Props::Create<Deliverer>(id, destination, kit_.TestActor()));
    kit_.ExpectMsg<RecoveryCompleted>();
    return s;
  }
  void Request(const ActorRef& s, const std::string& text) {
    s.Tell(Req{text});
    EXPECT_EQ(kit_.ExpectMsg<std::string>(), "accepted");
  }
  // Moves time in redelivery ticks until `done` holds.
  void AdvanceUntil(const std::function<bool()>& done, const char* what) {
    kit_.AwaitCondition(
        [&] {
          if (done()) return true;
          clock_.Advance(absl::Milliseconds(500));
          return false;
        },
        absl::Seconds(20), what);
  }

  actor::ManualClock clock_;
  TestKit kit_;
};

TEST_F(AtLeastOnceDeliveryTest, DeliversInOrderWithNothingLost) {
  auto seen = std::make_shared<Seen>();
  ActorRef dest = kit_.Sys().ActorOf(Props::Create<Destination>(seen, true));
  ActorRef s = StartSender("in-order", dest);
  for (int i = 0; i < 10; ++i) Request(s, std::to_string(i));
  kit_.AwaitCondition([&] { return seen->Unique() == 10; });
  base::MutexLock lock(&seen->mu);
  std::vector<std::string> expected;
  for (int i = 0; i < 10; ++i) expected.push_back(std::to_string(i));
  EXPECT_EQ(seen->texts, expected);  // no time passed: nothing resent
}

TEST_F(AtLeastOnceDeliveryTest, RedeliversWhatAnUnreliableLinkLost) {
  auto seen = std::make_shared<Seen>();
  ActorRef dest = kit_.Sys().ActorOf(Props::Create<Destination>(seen, true));
  ActorRef link = kit_.Sys().ActorOf(Props::Create<Unreliable>(3, dest));
  ActorRef s = StartSender("lossy", link);
  for (int i = 0; i < 30; ++i) Request(s, std::to_string(i));
  AdvanceUntil([&] { return seen->Unique() == 30; }, "all 30 arrived");
}

TEST_F(AtLeastOnceDeliveryTest, RedeliversAfterACrashAndRecovery) {
  auto seen = std::make_shared<Seen>();
  ActorRef silent = kit_.Sys().ActorOf(Props::Create<Destination>(seen, false));
  ActorRef s = StartSender("crash", silent);
  Request(s, "a");
  Request(s, "b");
  kit_.AwaitCondition([&] { return seen->Arrivals() == 2; });
  s.Tell(Boom{});
  kit_.ExpectMsg<RecoveryCompleted>();
  // Replay rebuilt both deliveries; they go out right after recovery,
  // without time passing.
  kit_.AwaitCondition([&] { return seen->Arrivals() == 4; });
  base::MutexLock lock(&seen->mu);
  EXPECT_EQ(seen->texts, (std::vector<std::string>{"a", "b", "a", "b"}));
}

TEST_F(AtLeastOnceDeliveryTest, ConfirmedDeliveriesAreNotResentAfterRecovery) {
  auto seen = std::make_shared<Seen>();
  ActorRef dest = kit_.Sys().ActorOf(Props::Create<Destination>(seen, true));
  ActorRef s = StartSender("confirmed", dest);
  Request(s, "a");
  kit_.AwaitCondition([&] { return seen->Arrivals() == 1; });
  s.Tell(GetSnapshot{});  // the confirmation was persisted before this
  AtLeastOnceDeliverySnapshot before =
      kit_.ExpectMsg<AtLeastOnceDeliverySnapshot>();
  EXPECT_TRUE(before.unconfirmed.empty());
  s.Tell(Boom{});
  kit_.ExpectMsg<RecoveryCompleted>();
  clock_.Advance(absl::Seconds(3));
  s.Tell(GetSnapshot{});
  AtLeastOnceDeliverySnapshot after =
      kit_.ExpectMsg<AtLeastOnceDeliverySnapshot>();
  EXPECT_EQ(after.current_delivery_id, 1);
  EXPECT_TRUE(after.unconfirmed.empty());
  EXPECT_EQ(seen->Arrivals(), 1u);
}

TEST_F(AtLeastOnceDeliveryTest, WarnsAfterTheConfiguredNumberOfAttempts) {
  auto seen = std::make_shared<Seen>();
  ActorRef silent = kit_.Sys().ActorOf(Props::Create<Destination>(seen, false));
  ActorRef s = StartSender("warn", silent);
  Request(s, "x");
  // Attempt 1 was the first send; 2 and 3 are redeliveries.
  AdvanceUntil([&] { return seen->Arrivals() >= 3; }, "third attempt");
  UnconfirmedWarning w = kit_.ExpectMsg<UnconfirmedWarning>();
  ASSERT_EQ(w.unconfirmed.size(), 1u);
  EXPECT_EQ(w.unconfirmed[0].delivery_id, 1);
  EXPECT_EQ(w.unconfirmed[0].destination, silent.Path().ToString());
  EXPECT_EQ(w.unconfirmed[0].message.As<Msg>()->text, "x");
}

TEST(AtLeastOnceDeliveryBurstTest, ResendsAtMostTheBurstLimitPerTick) {
  actor::ManualClock clock;
  TestKit kit(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
    akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
    akka.persistence.at-least-once-delivery {
      redeliver-interval = 1s
      redelivery-burst-limit = 2
    }
  )",
              &clock);
  auto seen = std::make_shared<Seen>();
  ActorRef silent = kit.Sys().ActorOf(Props::Create<Destination>(seen, false));
  ActorRef s = kit.Sys().ActorOf(
      Props::Create<Deliverer>("burst", silent, kit.TestActor()));
  kit.ExpectMsg<RecoveryCompleted>();
  for (int i = 0; i < 5; ++i) {
    s.Tell(Req{std::to_string(i)});
    kit.ExpectMsg<std::string>();
  }
  kit.AwaitCondition([&] { return seen->Arrivals() == 5; });
  // Ticks come every 500 ms; at 1 s all five are overdue. Whether one or
  // two ticks ran by then, each resent at most 2 (without the limit the
  // first overdue tick would resend all 5: 10 arrivals). The snapshot
  // round trip orders the check after the ticks' sends, which are then in
  // the destination's mailbox (a Tell to a ref enqueues at once); its
  // answer to an Identify sent after them means it has handled them all
  // (waiting for 7 arrivals instead could look while a tick's second
  // resend was still queued: 8).
  clock.Advance(absl::Seconds(1));
  s.Tell(GetSnapshot{});
  kit.ExpectMsg<AtLeastOnceDeliverySnapshot>();
  silent.Tell(actor::Identify{}, kit.TestActor());
  kit.ExpectMsg<actor::ActorIdentity>();
  const size_t arrivals = seen->Arrivals();
  EXPECT_TRUE(arrivals == 7 || arrivals == 9) << arrivals;
}

TEST(AtLeastOnceDeliveryLimitTest, DeliverBeyondTheLimitThrows) {
  actor::ManualClock clock;
  TestKit kit(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
    akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
    akka.persistence.at-least-once-delivery.max-unconfirmed-messages = 2
  )",
              &clock);
  auto seen = std::make_shared<Seen>();
  ActorRef silent = kit.Sys().ActorOf(Props::Create<Destination>(seen, false));
  ActorRef s = kit.Sys().ActorOf(
      Props::Create<Deliverer>("limit", silent, kit.TestActor()));
  kit.ExpectMsg<RecoveryCompleted>();
  s.Tell(DeliverNow{"a"});
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "delivered");
  s.Tell(DeliverNow{"b"});
  EXPECT_EQ(kit.ExpectMsg<std::string>(), "delivered");
  s.Tell(DeliverNow{"c"});
  std::string refused = kit.ExpectMsg<std::string>();
  EXPECT_NE(refused.find("refused: too many unconfirmed deliveries"),
            std::string::npos)
      << refused;
  EXPECT_NE(refused.find("max-unconfirmed-messages"), std::string::npos);
  // Nothing was sent or numbered for the refused one.
  s.Tell(GetSnapshot{});
  EXPECT_EQ(kit.ExpectMsg<AtLeastOnceDeliverySnapshot>().current_delivery_id,
            2);
  kit.AwaitCondition([&] { return seen->Arrivals() == 2; });
}

TEST_F(AtLeastOnceDeliveryTest, DeliverySnapshotRoundTrip) {
  auto seen = std::make_shared<Seen>();
  ActorRef silent = kit_.Sys().ActorOf(Props::Create<Destination>(seen, false));
  ActorRef s = StartSender("snap-a", silent);
  Request(s, "a");
  Request(s, "b");
  s.Tell(GetSnapshot{});
  AtLeastOnceDeliverySnapshot snapshot =
      kit_.ExpectMsg<AtLeastOnceDeliverySnapshot>();
  EXPECT_EQ(snapshot.current_delivery_id, 2);
  ASSERT_EQ(snapshot.unconfirmed.size(), 2u);
  EXPECT_EQ(snapshot.unconfirmed[1].message.As<Msg>()->text, "b");

  auto seen2 = std::make_shared<Seen>();
  ActorRef other = StartSender(
      "snap-b", kit_.Sys().ActorOf(Props::Create<Destination>(seen2, false)));
  other.Tell(Restore{snapshot});
  EXPECT_EQ(kit_.ExpectMsg<int>(), 2);
  // While the clock is advanced below, both senders keep redelivering to
  // the silent destination; however many ticks pass before the condition
  // is seen, a third attempt makes an UnconfirmedWarning (tested on its
  // own above), which may come before the snapshot asked for last.
  kit_.IgnoreMessages<UnconfirmedWarning>();
  // Restored deliveries go to their recorded destination at the next
  // redelivery, by path.
  AdvanceUntil([&] { return seen->Arrivals() >= 4; }, "restored resent");
  other.Tell(GetSnapshot{});
  EXPECT_EQ(kit_.ExpectMsg<AtLeastOnceDeliverySnapshot>().current_delivery_id,
            2);
}

TEST_F(AtLeastOnceDeliveryTest, ManySendersOverALossyLinkEveryMessageArrives) {
  auto seen = std::make_shared<Seen>();
  ActorRef dest = kit_.Sys().ActorOf(Props::Create<Destination>(seen, true));
  ActorRef link = kit_.Sys().ActorOf(Props::Create<Unreliable>(4, dest));
  constexpr int kSenders = 10;
  constexpr int kEach = 20;
  std::vector<ActorRef> senders;
  for (int i = 0; i < kSenders; ++i) {
    senders.push_back(StartSender(absl::StrCat("many-", i), link));
  }
  for (int m = 0; m < kEach; ++m) {
    for (int i = 0; i < kSenders; ++i) {
      senders[i].Tell(Req{absl::StrCat(i, "-", m)});
    }
  }
  for (int k = 0; k < kSenders * kEach; ++k) kit_.ExpectMsg<std::string>();
  AdvanceUntil([&] { return seen->Unique() == kSenders * kEach; },
               "every message arrived");
  // Duplicates are possible (a confirmation can cross a redelivery); the
  // receiver deduplicates by content, and nothing is missing.
  EXPECT_GE(seen->Arrivals(), static_cast<size_t>(kSenders * kEach));
}

}  // namespace
}  // namespace cairn::persistence
