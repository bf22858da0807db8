// The Account actor on the in-memory plugins: its rules, and that its
// balance comes back from the journal and from a snapshot.
#include "examples/bank/account.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actor/props.h"
#include "base/status_testing.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "examples/bank/test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/sync_calls.h"

namespace cairn::examples::bank {
namespace {

using actor::ActorRef;
using actor::Props;
using serialization::Payload;
using testing::BankTestKit;
using ::testing::HasSubstr;
using testing::kExpectTimeout;
using Outcome = AccountReply::Outcome;

class AccountTest : public ::testing::Test {
 protected:
  // Commands wait for the recovery: none needs to wait before them.
  ActorRef Start(int64_t number) {
    return kit_.Sys().ActorOf(Props::Create<Account>(number, progress_));
  }
  template <typename C>
  AccountReply Send(const ActorRef& account, C command) {
    account.Tell(command);
    return kit_.ExpectMsg<AccountReply>(kExpectTimeout);
  }
  void Stop(const ActorRef& account) {
    kit_.Watch(account);
    kit_.Sys().Stop(account);
    kit_.ExpectTerminated(account, kExpectTimeout);
  }
  // Starts an account that must fail its recovery, and stop; returns the
  // reason it keeps in progress_.
  std::string StartFailing(int64_t number) {
    ActorRef account = Start(number);
    kit_.Watch(account);
    kit_.ExpectTerminated(account, kExpectTimeout);
    std::optional<std::string> reason =
        progress_->FailureOf(AccountPersistenceId(number), account);
    EXPECT_TRUE(reason.has_value());
    return reason.value_or("");
  }

  std::shared_ptr<RecoveryProgress> progress_ =
      std::make_shared<RecoveryProgress>();
  BankTestKit kit_;
};

TEST_F(AccountTest, DepositsAndWithdrawalsChangeTheBalance) {
  ActorRef a = Start(1);
  AccountReply opened = Send(a, OpenAccount{1});
  EXPECT_EQ(opened.outcome, Outcome::kDone);
  EXPECT_EQ(opened.last_sequence_nr, 1);

  AccountReply deposited = Send(a, Deposit{1, 100});
  EXPECT_EQ(deposited.outcome, Outcome::kDone);
  EXPECT_EQ(deposited.amount, 100);
  EXPECT_EQ(deposited.balance, 100);
  EXPECT_EQ(deposited.last_sequence_nr, 2);

  AccountReply withdrawn = Send(a, Withdraw{1, 30});
  EXPECT_EQ(withdrawn.outcome, Outcome::kDone);
  EXPECT_EQ(withdrawn.balance, 70);
  EXPECT_EQ(withdrawn.last_sequence_nr, 3);

  AccountReply balance = Send(a, GetBalance{1});
  EXPECT_TRUE(balance.open);
  EXPECT_EQ(balance.balance, 70);
  EXPECT_EQ(balance.last_sequence_nr, 3);
}

// Deposits and withdrawals carry the "movements" tag, so a query (a
// projection, a report) reads every account's movements in commit order.
TEST_F(AccountTest, MovementsAreTaggedForQueries) {
  ActorRef a = Start(3);
  Send(a, OpenAccount{3});
  Send(a, Deposit{3, 100});
  Send(a, Withdraw{3, 30});
  absl::StatusOr<std::unique_ptr<persistence::ReadJournal>> queries =
      kit_.Journal().NewReadJournal();
  ASSERT_OK(queries);
  auto movements = (*queries)->CurrentEventsByTag(kMovementsTag, 0);
  absl::StatusOr<std::vector<persistence::EventEnvelope>> all =
      persistence::testing::PullAll(*movements, 10);
  ASSERT_OK(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].persistence_id, "account-3");
  ASSERT_NE((*all)[0].event.As<Deposited>(), nullptr);
  EXPECT_EQ((*all)[0].event.As<Deposited>()->balance, 100);
  ASSERT_NE((*all)[1].event.As<Withdrawn>(), nullptr);
  EXPECT_EQ((*all)[1].event.As<Withdrawn>()->amount, 30);
}

// A deposit sent again with its deposit_id (an at-least-once sender whose
// confirmation was lost) is answered as done and stored once: in this
// incarnation, after a restart from the events, and after one from a
// snapshot. Deposits without an id are never deduplicated.
TEST_F(AccountTest, ADepositWithAnIdIsStoredOnceHoweverOftenItIsSent) {
  ActorRef a = Start(4);
  Send(a, OpenAccount{4});
  AccountReply first = Send(a, Deposit{4, 100, "client/1"});
  EXPECT_EQ(first.outcome, Outcome::kDone);
  EXPECT_FALSE(first.duplicate);
  EXPECT_EQ(first.deposit_id, "client/1");
  EXPECT_EQ(first.last_sequence_nr, 2);
  AccountReply again = Send(a, Deposit{4, 100, "client/1"});
  EXPECT_EQ(again.outcome, Outcome::kDone);
  EXPECT_TRUE(again.duplicate);
  EXPECT_EQ(again.deposit_id, "client/1");
  EXPECT_EQ(again.amount, 100);
  EXPECT_EQ(again.balance, 100);
  EXPECT_EQ(again.last_sequence_nr, 2);  // nothing stored
  Send(a, Deposit{4, 7});
  EXPECT_EQ(Send(a, Deposit{4, 7}).last_sequence_nr, 4);  // no id: stored

  Stop(a);
  a = Start(4);  // from the events
  AccountReply replayed = Send(a, Deposit{4, 100, "client/1"});
  EXPECT_TRUE(replayed.duplicate);
  EXPECT_EQ(replayed.balance, 114);
  EXPECT_EQ(Send(a, Deposit{4, 5, "client/2"}).balance, 119);
  EXPECT_EQ(Send(a, TakeSnapshot{4}).outcome, Outcome::kDone);

  Stop(a);
  a = Start(4);  // from the snapshot
  EXPECT_TRUE(Send(a, Deposit{4, 100, "client/1"}).duplicate);
  AccountReply after_snapshot = Send(a, Deposit{4, 5, "client/2"});
  EXPECT_TRUE(after_snapshot.duplicate);
  EXPECT_EQ(after_snapshot.balance, 119);
  EXPECT_EQ(after_snapshot.last_sequence_nr, 5);
  EXPECT_EQ(after_snapshot.snapshot_sequence_nr, 5);
  // A refusal names the id too, so the sender can stop sending it.
  AccountReply refused = Send(a, Deposit{4, -1, "client/3"});
  EXPECT_EQ(refused.outcome, Outcome::kRefused);
  EXPECT_EQ(refused.deposit_id, "client/3");
}

TEST_F(AccountTest, AWithdrawalBeyondTheBalanceIsRefusedWithTheReason) {
  ActorRef a = Start(2);
  Send(a, OpenAccount{2});
  Send(a, Deposit{2, 50});
  AccountReply refused = Send(a, Withdraw{2, 80});
  EXPECT_EQ(refused.outcome, Outcome::kRefused);
  EXPECT_THAT(refused.reason, HasSubstr("insufficient funds"));
  EXPECT_THAT(refused.reason, HasSubstr("50"));
  EXPECT_THAT(refused.reason, HasSubstr("80"));
  EXPECT_EQ(refused.balance, 50);
  EXPECT_EQ(refused.last_sequence_nr, 2);  // nothing was persisted

  // Nor is anything found by the next incarnation.
  Stop(a);
  AccountReply after = Send(Start(2), GetBalance{2});
  EXPECT_EQ(after.balance, 50);
  EXPECT_EQ(after.last_sequence_nr, 2);
}

TEST_F(AccountTest, CommandsTheAccountCannotTakeAreRefused) {
  ActorRef a = Start(3);
  AccountReply not_open = Send(a, Deposit{3, 10});
  EXPECT_EQ(not_open.outcome, Outcome::kRefused);
  EXPECT_EQ(not_open.reason, "there is no account 3");

  Send(a, OpenAccount{3});
  EXPECT_EQ(Send(a, Deposit{3, 0}).outcome, Outcome::kRefused);
  EXPECT_EQ(Send(a, Withdraw{3, -5}).outcome, Outcome::kRefused);
  AccountReply again = Send(a, OpenAccount{3});
  EXPECT_EQ(again.outcome, Outcome::kRefused);
  EXPECT_THAT(again.reason, HasSubstr("already open"));
  EXPECT_EQ(Send(a, GetBalance{3}).last_sequence_nr, 1);
}

// StopAccount (the accounts region's stop message) waits for what came
// before it, here a deposit being persisted.
TEST_F(AccountTest, StopAccountStopsItAfterTheCommandsBefore) {
  ActorRef a = Start(8);
  Send(a, OpenAccount{8});
  kit_.Watch(a);
  a.Tell(Deposit{8, 10});
  a.Tell(StopAccount{});
  AccountReply deposited = kit_.ExpectMsg<AccountReply>(kExpectTimeout);
  EXPECT_EQ(deposited.outcome, Outcome::kDone);
  EXPECT_EQ(deposited.balance, 10);
  kit_.ExpectTerminated(a, kExpectTimeout);
}

// Nor does it drop the answer to a snapshot being saved.
TEST_F(AccountTest, StopAccountWaitsForTheSnapshotBeingSaved) {
  ActorRef a = Start(9);
  Send(a, OpenAccount{9});
  kit_.Watch(a);
  a.Tell(TakeSnapshot{9});
  a.Tell(StopAccount{});
  AccountReply saved = kit_.ExpectMsg<AccountReply>(kExpectTimeout);
  EXPECT_EQ(saved.outcome, Outcome::kDone);
  EXPECT_EQ(saved.last_sequence_nr, 1);
  kit_.ExpectTerminated(a, kExpectTimeout);
}

TEST_F(AccountTest, ANewIncarnationRecoversTheBalanceByReplay) {
  ActorRef a = Start(4);
  Send(a, OpenAccount{4});
  for (int64_t amount : {10, 20, 30}) Send(a, Deposit{4, amount});
  Send(a, Withdraw{4, 5});
  Stop(a);

  AccountReply recovered = Send(Start(4), GetBalance{4});
  EXPECT_TRUE(recovered.open);
  EXPECT_EQ(recovered.balance, 55);
  EXPECT_EQ(recovered.last_sequence_nr, 5);
  EXPECT_EQ(recovered.snapshot_sequence_nr, 0);
  EXPECT_EQ(recovered.replayed_events, 5);
}

TEST_F(AccountTest, RecoveryStartsFromTheSnapshot) {
  ActorRef a = Start(5);
  Send(a, OpenAccount{5});
  Send(a, Deposit{5, 10});
  Send(a, Deposit{5, 20});
  AccountReply snapshot = Send(a, TakeSnapshot{5});
  EXPECT_EQ(snapshot.outcome, Outcome::kDone);
  EXPECT_EQ(snapshot.last_sequence_nr, 3);
  Send(a, Deposit{5, 5});
  Stop(a);

  AccountReply recovered = Send(Start(5), GetBalance{5});
  EXPECT_EQ(recovered.balance, 35);
  EXPECT_EQ(recovered.last_sequence_nr, 4);
  EXPECT_EQ(recovered.snapshot_sequence_nr, 3);
  EXPECT_EQ(recovered.replayed_events, 1);  // only the deposit after it
}

// Registered with no serializer: the journal rejects its write, and the
// sequence number it had is used up, leaving a gap in the stream.
struct NeverSerialized {};

TEST_F(AccountTest, AGapInTheEventsFailsTheRecoveryNamingTheEvent) {
  ASSERT_OK(kit_.WriteEvents("account-9", {{1, Payload::Of(Opened{})}}));
  ASSERT_FALSE(
      kit_.WriteEvents("account-9", {{2, Payload::Of(NeverSerialized{})}})
          .ok());
  ASSERT_OK(
      kit_.WriteEvents("account-9", {{3, Payload::Of(Deposited{7, {}})}}));
  const std::string reason = StartFailing(9);
  EXPECT_THAT(reason, HasSubstr("\"account-9\""));
  EXPECT_THAT(reason, HasSubstr("sequence number 3"));
  EXPECT_THAT(reason, HasSubstr("events are missing"));
}

// Deposits stored since bank.Deposited.v2 carry the balance after them: a
// deposit read wrong (here: written wrong) fails the recovery.
TEST_F(AccountTest, ADepositWhoseBalanceDoesNotAddUpFailsTheRecovery) {
  ASSERT_OK(
      kit_.WriteEvents("account-4", {{1, Payload::Of(Opened{})},
                                     {2, Payload::Of(Deposited{10, 10})},
                                     {3, Payload::Of(Deposited{5, 99})}}));
  const std::string reason = StartFailing(4);
  EXPECT_THAT(reason, HasSubstr("account 4: the deposit at sequence number 3 "
                                "of 5 says the balance is 99, the events "
                                "before it give 15"));
}

TEST_F(AccountTest, AnUnreadableEventFailsTheRecoveryNamingIt) {
  ASSERT_OK(kit_.WriteEvents(
      "account-6",
      {{1, Payload::Of(Opened{})}, {2, Payload::Of(testing::Unreadable{})}}));
  const std::string reason = StartFailing(6);
  EXPECT_THAT(reason, HasSubstr("account-6"));
  EXPECT_THAT(reason, HasSubstr("sequence nr 2"));
}

}  // namespace
}  // namespace cairn::examples::bank
