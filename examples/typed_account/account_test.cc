// The typed account, command by command, with the
// EventSourcedBehaviorTestKit: what each command stores and answers, and
// what a restart recovers.

#include "examples/typed_account/account.h"

#include <memory>
#include <utility>

#include "actor/testkit/test_kit.h"
#include "actor/typed_ref.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/testkit/persistence_test_kit.h"
#include "persistence/typed/event_sourced_behavior_test_kit.h"

namespace cairn::examples::typed_account {
namespace {

using actor::ReplyTo;
using AccountKit =
    persistence::typed::EventSourcedBehaviorTestKit<AccountCommand,
                                                    AccountEvent, Balance>;

class TypedAccountTest : public ::testing::Test {
 protected:
  TypedAccountTest()
      : kit_(persistence::testkit::PersistenceTestKit::Config()) {
    auto registry = std::make_shared<serialization::SerializationRegistry>();
    EXPECT_OK(RegisterAccountTypes(*registry));
    absl::StatusOr<std::unique_ptr<AccountKit>> account = AccountKit::Create(
        kit_.Sys(), MakeAccount("alice"), {.serialization = registry});
    EXPECT_OK(account);
    account_ = *std::move(account);
  }

  AccountKit::CommandResultWithReply<Confirmation> Deposit(int64_t amount) {
    return account_->RunCommand<Confirmation>(
        [amount](ReplyTo<Confirmation> to) {
          return typed_account::Deposit{amount, to};
        });
  }
  AccountKit::CommandResultWithReply<Confirmation> Withdraw(int64_t amount) {
    return account_->RunCommand<Confirmation>(
        [amount](ReplyTo<Confirmation> to) {
          return typed_account::Withdraw{amount, to};
        });
  }

  actor::testkit::TestKit kit_;
  std::unique_ptr<AccountKit> account_;
};

TEST_F(TypedAccountTest, ADepositIsStoredThenConfirmed) {
  auto result = Deposit(100);
  EXPECT_TRUE(result.reply.accepted);
  EXPECT_EQ(result.reply.balance, 100);
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_EQ(std::get<Deposited>(result.events[0]).amount, 100);
}

TEST_F(TypedAccountTest, AnOverdraftIsRefusedAndStoresNothing) {
  Deposit(50);
  auto result = Withdraw(80);
  EXPECT_FALSE(result.reply.accepted);
  EXPECT_EQ(result.reply.reason, "insufficient funds");
  EXPECT_TRUE(result.events.empty());
  EXPECT_EQ(result.state.amount, 50);
}

TEST_F(TypedAccountTest, ARestartRecoversTheBalance) {
  Deposit(100);
  Withdraw(30);
  EXPECT_EQ(account_->Restart().amount, 70);
}

TEST_F(TypedAccountTest, ItSnapshotsEveryHundredEvents) {
  for (int i = 0; i < 100; ++i) Deposit(1);
  EXPECT_EQ(account_->persistence()
                .ExpectNextSnapshot<Balance>("account-alice")
                .amount,
            100);
  EXPECT_EQ(account_->Restart().amount, 100);
}

}  // namespace
}  // namespace cairn::examples::typed_account
