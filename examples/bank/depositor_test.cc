// The Depositor (a `bank deposits` client's actor) on the in-memory
// plugins, with the test actor in place of the accounts: it sends every
// deposit with an id until the account answers it (a failure or an
// unavailable shard is no answer), tells each answer once however many
// replies come, and started again under its name sends exactly the
// deposits still unanswered.
#include "examples/bank/depositor.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "actor/props.h"
#include "examples/bank/protocol.h"
#include "examples/bank/test_support.h"
#include "gtest/gtest.h"
#include "sharding/entity_region.h"

namespace cairn::examples::bank {
namespace {

using actor::ActorRef;
using actor::Props;
using testing::BankTestKit;
using testing::kExpectTimeout;
using Outcome = AccountReply::Outcome;

// What the listener hears, as messages to a probe.
struct Answered {
  int64_t id = 0;
  int64_t account = 0;
  Outcome outcome = Outcome::kDone;
};
struct Finished {
  int64_t before = 0;
};

DepositorListener ListenerTo(ActorRef probe) {
  DepositorListener listener;
  listener.answered = [probe](int64_t id, const AccountReply& r) {
    probe.Tell(Answered{id, r.account, r.outcome});
  };
  listener.finished = [probe](int64_t before) { probe.Tell(Finished{before}); };
  return listener;
}

AccountReply ReplyTo(const Deposit& d, Outcome outcome) {
  AccountReply r;
  r.outcome = outcome;
  r.account = d.account;
  r.amount = d.amount;
  r.deposit_id = d.deposit_id;
  return r;
}

TEST(DepositorTest, SendsEachDepositUntilItsAccountAnswersAndTellsItOnce) {
  BankTestKit kit(nullptr,
                  "akka.persistence.at-least-once-delivery.redeliver-interval "
                  "= 200ms");
  auto probe = kit.CreateTestProbe();
  ActorRef depositor = kit.Sys().ActorOf(
      Props::Create<Depositor>("c", kit.TestActor(), ListenerTo(probe->Ref())));
  depositor.Tell(StartDeposits{2, 3});
  // Deposit i of i + 1 to account i % 2, delivery i + 1.
  const Deposit first = kit.ExpectMsg<Deposit>(kExpectTimeout);
  EXPECT_EQ(first.deposit_id, "c/1");
  EXPECT_EQ(first.account, 0);
  EXPECT_EQ(first.amount, 1);
  const Deposit second = kit.ExpectMsg<Deposit>(kExpectTimeout);
  EXPECT_EQ(second.deposit_id, "c/2");
  EXPECT_EQ(second.account, 1);
  EXPECT_EQ(second.amount, 2);
  const Deposit third = kit.ExpectMsg<Deposit>(kExpectTimeout);
  EXPECT_EQ(third.deposit_id, "c/3");

  // Answered twice (a redelivery's reply): told once.
  depositor.Tell(ReplyTo(second, Outcome::kDone));
  depositor.Tell(ReplyTo(second, Outcome::kDone));
  EXPECT_EQ(probe->ExpectMsg<Answered>(kExpectTimeout).id, 2);
  // Not answers: the deposit goes again.
  depositor.Tell(ReplyTo(first, Outcome::kFailed));
  depositor.Tell(sharding::ShardUnavailable{"accounts", "1", "held"});
  std::set<std::string> again;
  kit.FishForMessage<Deposit>(
      [&](const Deposit& d) {
        again.insert(d.deposit_id);
        return again.contains("c/1") && again.contains("c/3");
      },
      kExpectTimeout, "c/1 and c/3 sent again");

  depositor.Tell(ReplyTo(first, Outcome::kDone));
  depositor.Tell(ReplyTo(third, Outcome::kRefused));
  const Answered a1 = probe->ExpectMsg<Answered>(kExpectTimeout);
  EXPECT_EQ(a1.id, 1);
  EXPECT_EQ(a1.account, 0);
  const Answered a3 = probe->ExpectMsg<Answered>(kExpectTimeout);
  EXPECT_EQ(a3.id, 3);
  EXPECT_EQ(a3.outcome, Outcome::kRefused);
  EXPECT_EQ(probe->ExpectMsg<Finished>(kExpectTimeout).before, 0);
}

TEST(DepositorTest, StartedAgainItSendsTheUnansweredDepositsOnly) {
  // No redelivery during the test: what the second incarnation sends, it
  // sends at its recovery's end.
  BankTestKit kit(nullptr,
                  "akka.persistence.at-least-once-delivery.redeliver-interval "
                  "= 1h");
  auto probe = kit.CreateTestProbe();
  ActorRef depositor = kit.Sys().ActorOf(
      Props::Create<Depositor>("c", kit.TestActor(), ListenerTo(probe->Ref())));
  depositor.Tell(StartDeposits{1, 3});
  kit.ExpectMsg<Deposit>(kExpectTimeout);
  const Deposit second = kit.ExpectMsg<Deposit>(kExpectTimeout);
  kit.ExpectMsg<Deposit>(kExpectTimeout);
  depositor.Tell(ReplyTo(second, Outcome::kDone));
  EXPECT_EQ(probe->ExpectMsg<Answered>(kExpectTimeout).id, 2);
  kit.Watch(depositor);
  kit.Sys().Stop(depositor);
  kit.ExpectTerminated(depositor, kExpectTimeout);

  depositor = kit.Sys().ActorOf(
      Props::Create<Depositor>("c", kit.TestActor(), ListenerTo(probe->Ref())));
  const Deposit first = kit.ExpectMsg<Deposit>(kExpectTimeout);
  const Deposit third = kit.ExpectMsg<Deposit>(kExpectTimeout);
  EXPECT_EQ(first.deposit_id, "c/1");
  EXPECT_EQ(third.deposit_id, "c/3");
  EXPECT_EQ(third.amount, 3);
  // Asked again for the same deposits, it requests none more.
  depositor.Tell(StartDeposits{1, 3});
  depositor.Tell(ReplyTo(first, Outcome::kDone));
  depositor.Tell(ReplyTo(third, Outcome::kDone));
  EXPECT_EQ(probe->ExpectMsg<Answered>(kExpectTimeout).id, 1);
  EXPECT_EQ(probe->ExpectMsg<Answered>(kExpectTimeout).id, 3);
  EXPECT_EQ(probe->ExpectMsg<Finished>(kExpectTimeout).before, 1);
}

}  // namespace
}  // namespace cairn::examples::bank
