// Schema evolution in the bank (docs/SCHEMA_EVOLUTION.md): deposits were
// first stored as bank.Deposited.v1 (the Deposited table, an amount); they
// are now stored as bank.Deposited.v2 (DepositedV2, with the balance after
// the deposit). A store written by the first version is read by this one:
// the old deposits count, new ones are written in the new form after them,
// and both come back after a restart.
//
// That version also kept a registry of account numbers (persistence id
// "bank", one AccountRegistered event each), written before an account's
// Opened. Accounts are now listed from the journal's persistence ids: the
// registry is left alone, and an account registered but never opened (a
// crash between the two) has no events and is not listed.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status_testing.h"
#include "examples/bank/bank_events_generated.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "examples/bank/serialization.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "serialization/flatbuffers_serialization.h"
#include "serialization/serialization.h"

namespace cairn::examples::bank {
namespace {

using flatbuffers::FlatBufferBuilder;
using serialization::Payload;
using serialization::RegisterFlatBuffersTable;

// A deposit as the first version stored it.
struct DepositedV1 {
  int64_t amount = 0;
};
// The registry's event, as versions before the accounts region stored it.
struct AccountRegistered {
  int64_t account = 0;
};
constexpr char kAccountRegisteredManifest[] = "bank.AccountRegistered.v1";

// The first version's registry, for what this test stores: the account
// registry's event, Opened, and deposits as bank.Deposited.v1.
std::shared_ptr<const serialization::SerializationRegistry> V1Serialization() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status s =
      RegisterFlatBuffersTable<AccountRegistered, fb::AccountRegistered>(
          *registry, kAccountRegisteredManifest,
          [](FlatBufferBuilder& b, const AccountRegistered& e) {
            return fb::CreateAccountRegistered(b, e.account);
          },
          [](const fb::AccountRegistered& t)
              -> absl::StatusOr<AccountRegistered> {
            return AccountRegistered{t.account()};
          });
  if (s.ok()) {
    s = RegisterFlatBuffersTable<Opened, fb::Opened>(
        *registry, kOpenedManifest,
        [](FlatBufferBuilder& b, const Opened&) { return fb::CreateOpened(b); },
        [](const fb::Opened&) -> absl::StatusOr<Opened> { return Opened{}; });
  }
  if (s.ok()) {
    s = RegisterFlatBuffersTable<DepositedV1, fb::Deposited>(
        *registry, kDepositedV1Manifest,
        [](FlatBufferBuilder& b, const DepositedV1& e) {
          return fb::CreateDeposited(b, e.amount);
        },
        [](const fb::Deposited& t) -> absl::StatusOr<DepositedV1> {
          return DepositedV1{t.amount()};
        });
  }
  EXPECT_OK(s);
  return registry;
}

// Account 7 with deposits of 100 and 50, as the first version left it;
// account 8 registered, then a crash before its Opened.
void StoreAsVersion1(const std::string& dir) {
  persistence::RocksDbOptions options;
  options.path = dir;
  options.fsync = false;
  absl::StatusOr<persistence::RocksDbStore> store =
      persistence::RocksDbStore::Open(options);
  ASSERT_OK(store);
  absl::StatusOr<std::unique_ptr<persistence::Journal>> journal =
      store->NewJournal(V1Serialization());
  ASSERT_OK(journal);
  persistence::testing::WriteOutcome written =
      persistence::testing::WriteMessages(
          **journal,
          {persistence::testing::Single("bank", 1,
                                        Payload::Of(AccountRegistered{7})),
           persistence::testing::Single("bank", 2,
                                        Payload::Of(AccountRegistered{8})),
           persistence::testing::Single("account-7", 1, Payload::Of(Opened{})),
           persistence::testing::Single("account-7", 2,
                                        Payload::Of(DepositedV1{100})),
           persistence::testing::Single("account-7", 3,
                                        Payload::Of(DepositedV1{50}))});
  ASSERT_OK(written.batch);
  for (const absl::Status& s : written.per_write) ASSERT_OK(s);
}

AccountReply Balance(BankSystem& bank, int64_t account) {
  absl::StatusOr<AccountReply> reply = bank.client().Call(GetBalance{account});
  EXPECT_OK(reply);
  return reply.ok() ? *reply : AccountReply{};
}

TEST(BankMigrationTest, DepositsStoredByTheFirstVersionStillCount) {
  absl::StatusOr<persistence::testing::TempDir> dir =
      persistence::testing::TempDir::Make();
  ASSERT_OK(dir);
  const std::string path = dir->path() + "/bank";
  StoreAsVersion1(path);
  StoreOptions options;
  options.dir = path;
  options.fsync = false;
  {
    absl::StatusOr<std::unique_ptr<BankSystem>> bank =
        BankSystem::Start(options);
    ASSERT_OK(bank);
    absl::StatusOr<std::vector<int64_t>> accounts =
        (*bank)->client().ListAccounts();
    ASSERT_OK(accounts);
    EXPECT_EQ(*accounts, std::vector<int64_t>{7});
    AccountReply before = Balance(**bank, 7);
    EXPECT_EQ(before.outcome, AccountReply::Outcome::kDone) << before.reason;
    EXPECT_EQ(before.balance, 150);
    EXPECT_EQ(before.last_sequence_nr, 3);
    absl::StatusOr<AccountReply> deposit =
        (*bank)->client().Call(Deposit{7, 10});
    ASSERT_OK(deposit);
    EXPECT_EQ(deposit->balance, 160);
  }
  // The new deposit is stored in the new form, with its balance.
  {
    persistence::RocksDbOptions read;
    read.path = path;
    read.mode = persistence::RocksDbMode::kReadOnly;
    absl::StatusOr<persistence::RocksDbStore> store =
        persistence::RocksDbStore::Open(read);
    ASSERT_OK(store);
    absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
        serialization = NewBankSerialization();
    ASSERT_OK(serialization);
    absl::StatusOr<std::unique_ptr<persistence::Journal>> journal =
        store->NewJournal(*serialization);
    ASSERT_OK(journal);
    persistence::testing::ReplayOutcome replay =
        persistence::testing::ReplayMessages(**journal, "account-7", 2, 4, 10);
    ASSERT_OK(replay.status);
    ASSERT_EQ(replay.events.size(), 3u);
    EXPECT_FALSE(replay.events[0].payload.As<Deposited>()->balance.has_value());
    EXPECT_EQ(replay.events[2].payload.As<Deposited>()->balance, 160);
  }
  absl::StatusOr<std::unique_ptr<BankSystem>> again =
      BankSystem::Start(options);
  ASSERT_OK(again);
  AccountReply after = Balance(**again, 7);
  EXPECT_EQ(after.balance, 160);
  EXPECT_EQ(after.last_sequence_nr, 4);
  // Account 8 can be opened now, as any new account.
  absl::StatusOr<AccountReply> opened = (*again)->client().Call(OpenAccount{8});
  ASSERT_OK(opened);
  EXPECT_EQ(opened->outcome, AccountReply::Outcome::kDone) << opened->reason;
  absl::StatusOr<std::vector<int64_t>> accounts =
      (*again)->client().ListAccounts();
  ASSERT_OK(accounts);
  EXPECT_EQ(*accounts, (std::vector<int64_t>{7, 8}));
}

}  // namespace
}  // namespace cairn::examples::bank
