// The Bank on the in-memory plugins: the registry of accounts, routing, and
// answers for accounts that cannot recover.
#include "examples/bank/bank.h"

#include <string>
#include <vector>

#include "actor/future.h"
#include "actor/props.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "examples/bank/test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace cairn::examples::bank {
namespace {

using actor::ActorRef;
using actor::Props;
using persistence::Payload;
using testing::BankTestKit;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kExpectTimeout;
using Outcome = AccountReply::Outcome;

class BankTest : public ::testing::Test {
 protected:
  // Starts a Bank and waits for it to recover, as BankSystem does.
  ActorRef StartBank() {
    actor::Promise<void> recovered;
    ActorRef bank = kit_.Sys().ActorOf(Props::Create<Bank>(recovered));
    EXPECT_TRUE(recovered.GetFuture().wait_for(kExpectTimeout));
    return bank;
  }
  template <typename C>
  AccountReply Send(const ActorRef& bank, C command) {
    bank.Tell(command);
    return kit_.ExpectMsg<AccountReply>(kExpectTimeout);
  }
  std::vector<int64_t> Accounts(const ActorRef& bank) {
    bank.Tell(ListAccounts{});
    return kit_.ExpectMsg<AccountList>(kExpectTimeout).accounts;
  }

  BankTestKit kit_;
};

TEST_F(BankTest, CommandsForAnAccountNobodyOpenedAreRefused) {
  ActorRef bank = StartBank();
  AccountReply r = Send(bank, Deposit{7, 10});
  EXPECT_EQ(r.outcome, Outcome::kRefused);
  EXPECT_THAT(r.reason, HasSubstr("no account 7"));
  EXPECT_TRUE(Accounts(bank).empty());
}

TEST_F(BankTest, OpeningRegistersTheAccountAndCommandsReachIt) {
  ActorRef bank = StartBank();
  for (int64_t account : {10, 1, 3}) {
    EXPECT_EQ(Send(bank, OpenAccount{account}).outcome, Outcome::kDone);
  }
  EXPECT_THAT(Accounts(bank), ElementsAre(1, 3, 10));
  EXPECT_EQ(Send(bank, Deposit{10, 40}).balance, 40);
  EXPECT_EQ(Send(bank, Withdraw{10, 15}).balance, 25);
  AccountReply again = Send(bank, OpenAccount{10});
  EXPECT_EQ(again.outcome, Outcome::kRefused);
  EXPECT_THAT(again.reason, HasSubstr("already open"));
  EXPECT_EQ(Send(bank, OpenAccount{-1}).outcome, Outcome::kRefused);
}

TEST_F(BankTest, TheRegistryAndTheBalancesSurviveTheBank) {
  ActorRef bank = StartBank();
  Send(bank, OpenAccount{2});
  Send(bank, OpenAccount{12});
  Send(bank, Deposit{12, 99});
  kit_.Watch(bank);
  kit_.Sys().Stop(bank);  // its accounts stop with it
  kit_.ExpectTerminated(bank, kExpectTimeout);

  ActorRef again = StartBank();
  EXPECT_THAT(Accounts(again), ElementsAre(2, 12));
  AccountReply r = Send(again, GetBalance{12});
  EXPECT_EQ(r.balance, 99);
  EXPECT_EQ(r.last_sequence_nr, 2);
}

// Registered with no serializer: the journal rejects it.
struct NeverSerialized {};

TEST_F(BankTest, AnAccountThatCannotRecoverAnswersWithTheReason) {
  ASSERT_TRUE(kit_.WriteEvents("bank", {{1, Payload::Of(AccountRegistered{5})},
                                        {2, Payload::Of(AccountRegistered{6})}})
                  .ok());
  // A gap: the event at 2 was rejected (no serializer), its number used up.
  ASSERT_TRUE(kit_.WriteEvents("account-5", {{1, Payload::Of(Opened{})}}).ok());
  ASSERT_FALSE(
      kit_.WriteEvents("account-5", {{2, Payload::Of(NeverSerialized{})}})
          .ok());
  ASSERT_TRUE(
      kit_.WriteEvents("account-5", {{3, Payload::Of(Deposited{1, {}})}}).ok());
  ActorRef bank = StartBank();
  AccountReply r = Send(bank, GetBalance{5});
  EXPECT_EQ(r.outcome, Outcome::kFailed);
  EXPECT_EQ(r.account, 5);
  EXPECT_THAT(r.reason, HasSubstr("\"account-5\""));
  EXPECT_THAT(r.reason, HasSubstr("sequence number 3"));

  // The next command starts a new incarnation, which fails the same way.
  EXPECT_EQ(Send(bank, Deposit{5, 1}).outcome, Outcome::kFailed);
  // The other accounts are not affected.
  EXPECT_EQ(Send(bank, OpenAccount{6}).outcome, Outcome::kDone);
  EXPECT_EQ(Send(bank, Deposit{6, 8}).balance, 8);
}

TEST_F(BankTest, ARegisteredAccountWithoutEventsCanStillBeOpened) {
  // A crash between the registration and the account's Opened event.
  ASSERT_TRUE(
      kit_.WriteEvents("bank", {{1, Payload::Of(AccountRegistered{4})}}).ok());
  ActorRef bank = StartBank();
  AccountReply before = Send(bank, GetBalance{4});
  EXPECT_FALSE(before.open);
  EXPECT_EQ(before.last_sequence_nr, 0);
  EXPECT_EQ(Send(bank, OpenAccount{4}).outcome, Outcome::kDone);
  EXPECT_THAT(Accounts(bank), ElementsAre(4));
}

}  // namespace
}  // namespace cairn::examples::bank
