// A bank keeps a bounded number of accounts in memory
// (StoreOptions::active_accounts, the accounts region's active-entity
// limit): beyond it the least recently used are passivated, and one
// recovers from the store on its next command, its balance intact.
#include <cstdint>
#include <memory>
#include <vector>

#include "base/status_testing.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/protocol.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::examples::bank {
namespace {

using Outcome = AccountReply::Outcome;

TEST(ActiveAccountsTest, TheBankSetsALimitByDefault) {
  EXPECT_GT(StoreOptions{}.active_accounts, 0u);
}

TEST(ActiveAccountsTest, AnAccountPassivatedBeyondTheLimitRecoversAgain) {
  absl::StatusOr<persistence::testing::TempDir> dir =
      persistence::testing::TempDir::Make();
  ASSERT_OK(dir);
  StoreOptions options{dir->path(), /*fsync=*/false};
  options.active_accounts = 100;
  absl::StatusOr<std::unique_ptr<BankSystem>> bank = BankSystem::Start(options);
  ASSERT_OK(bank);
  const BankClient& client = (*bank)->client();
  absl::StatusOr<AccountReply> opened = client.Call(OpenAccount{0});
  ASSERT_OK(opened);
  ASSERT_EQ(opened->outcome, Outcome::kDone) << opened->reason;
  absl::StatusOr<AccountReply> deposited = client.Call(Deposit{0, 5});
  ASSERT_OK(deposited);
  ASSERT_EQ(deposited->outcome, Outcome::kDone) << deposited->reason;

  // Twenty times the limit, in every shard: account 0 is the least
  // recently used of its shard.
  std::vector<int64_t> others;
  for (int64_t a = 1; a <= 2000; ++a) others.push_back(a);
  ASSERT_OK(client.CallEach<OpenAccount>(
      others, 64, [](int64_t a) { return OpenAccount{a}; },
      [](const AccountReply& r) {
        return r.outcome == Outcome::kDone ? absl::OkStatus()
                                           : absl::InternalError(r.reason);
      }));

  absl::StatusOr<AccountReply> balance = client.Call(GetBalance{0});
  ASSERT_OK(balance);
  EXPECT_EQ(balance->outcome, Outcome::kDone) << balance->reason;
  EXPECT_EQ(balance->balance, 5);
  // A new incarnation: it replayed its Opened and its deposit.
  EXPECT_EQ(balance->replayed_events, 2);
}

}  // namespace
}  // namespace cairn::examples::bank
