// The accounts' region on the in-memory plugins: routing by account
// number, accounts nobody opened, answers for commands that wait for a
// recovery that fails, and passivation with StopAccount.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "actor/actor_ref.h"
#include "base/status_testing.h"
#include "examples/bank/account.h"
#include "examples/bank/account_region.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "examples/bank/test_support.h"
#include "examples/bank/undelivered.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/persistence_query.h"
#include "persistence/storage/testing/sync_calls.h"
#include "sharding/entity_region.h"

namespace cairn::examples::bank {
namespace {

using actor::ActorRef;
using serialization::Payload;
using sharding::EntityRegionSettings;
using testing::BankTestKit;
using testing::GatedJournal;
using ::testing::HasSubstr;
using testing::kExpectTimeout;
using ::testing::Not;
using testing::OpenAtEnd;
using testing::ReplayGate;
using Outcome = AccountReply::Outcome;

// Registered with no serializer: the journal rejects it.
struct NeverSerialized {};

class BankTest : public ::testing::Test {
 protected:
  // The replay of account-1 waits at the gate_ (open unless a test closes
  // it).
  BankTest()
      : gate_(std::make_shared<ReplayGate>()),
        kit_([gate = gate_](std::unique_ptr<persistence::Journal> inner) {
          return std::make_unique<GatedJournal>(std::move(inner), "account-1",
                                                gate);
        }) {
    AnswerUndeliveredCommands(kit_.Sys(), progress_);
  }
  ~BankTest() override { gate_->AllowAll(); }

  // The region as BankSystem starts it (its undelivered commands
  // answered), with `settings` changed by `adjust`.
  ActorRef StartRegion(void (*adjust)(EntityRegionSettings&) = nullptr) {
    absl::StatusOr<EntityRegionSettings> settings =
        AccountRegionSettings(kit_.Sys().Settings());
    EXPECT_OK(settings);
    if (adjust != nullptr) adjust(*settings);
    return kit_.Sys().ActorOf(AccountRegionProps(*settings, progress_));
  }
  template <typename C>
  AccountReply Send(const ActorRef& region, C command) {
    region.Tell(command, kit_.TestActor());
    return kit_.ExpectMsg<AccountReply>(kExpectTimeout);
  }
  // The persistence ids with something stored.
  std::vector<std::string> StoredIds() {
    absl::StatusOr<persistence::ReadJournal*> queries =
        persistence::PersistenceQuery::Get(kit_.Sys()).ReadJournalFor("");
    EXPECT_OK(queries);
    if (!queries.ok()) return {};
    auto ids = (*queries)->CurrentPersistenceIds();
    absl::StatusOr<std::vector<std::string>> all =
        persistence::testing::PullAll(*ids, 100);
    EXPECT_OK(all);
    return all.ok() ? *all : std::vector<std::string>{};
  }

  std::shared_ptr<ReplayGate> gate_;
  std::shared_ptr<RecoveryProgress> progress_ =
      std::make_shared<RecoveryProgress>();
  BankTestKit kit_;
};

TEST_F(BankTest, CommandsForAnAccountNobodyOpenedAreRefusedStoringNothing) {
  gate_->AllowAll();
  ActorRef region = StartRegion();
  for (AccountReply r :
       {Send(region, Deposit{7, 10}), Send(region, Withdraw{7, 1}),
        Send(region, GetBalance{7}), Send(region, TakeSnapshot{7})}) {
    EXPECT_EQ(r.outcome, Outcome::kRefused);
    EXPECT_EQ(r.account, 7);
    EXPECT_EQ(r.reason, "there is no account 7");
    EXPECT_FALSE(r.open);
  }
  AccountReply negative = Send(region, OpenAccount{-1});
  EXPECT_EQ(negative.outcome, Outcome::kRefused);
  EXPECT_THAT(negative.reason, HasSubstr("not negative"));

  // No event, no snapshot.
  EXPECT_TRUE(StoredIds().empty());
  absl::StatusOr<persistence::SnapshotStore*> snapshots =
      persistence::Persistence::Get(kit_.Sys()).SnapshotStoreFor("");
  ASSERT_OK(snapshots);
  absl::StatusOr<persistence::LoadSnapshotResult> snapshot =
      persistence::testing::LoadSnapshot(
          **snapshots, AccountPersistenceId(7),
          persistence::SnapshotSelectionCriteria::Latest(),
          persistence::kMaxSequenceNr);
  ASSERT_OK(snapshot);
  EXPECT_FALSE(snapshot->snapshot.has_value());
}

TEST_F(BankTest, CommandsReachTheirAccountsByNumber) {
  gate_->AllowAll();
  ActorRef region = StartRegion();
  for (int64_t account : {10, 1, 3}) {
    EXPECT_EQ(Send(region, OpenAccount{account}).outcome, Outcome::kDone);
  }
  EXPECT_EQ(Send(region, Deposit{10, 40}).balance, 40);
  EXPECT_EQ(Send(region, Deposit{3, 5}).balance, 5);
  AccountReply withdrawn = Send(region, Withdraw{10, 15});
  EXPECT_EQ(withdrawn.account, 10);
  EXPECT_EQ(withdrawn.balance, 25);
  AccountReply again = Send(region, OpenAccount{10});
  EXPECT_EQ(again.outcome, Outcome::kRefused);
  EXPECT_THAT(again.reason, HasSubstr("already open"));
  EXPECT_THAT(StoredIds(), ::testing::UnorderedElementsAre(
                               "account-1", "account-3", "account-10"));
}

TEST_F(BankTest, TheBalancesSurviveTheRegion) {
  gate_->AllowAll();
  ActorRef region = StartRegion();
  Send(region, OpenAccount{12});
  Send(region, Deposit{12, 99});
  kit_.Watch(region);
  region.Tell(sharding::GracefulShutdown{});  // its accounts stop with it
  kit_.ExpectTerminated(region, kExpectTimeout);

  AccountReply r = Send(StartRegion(), GetBalance{12});
  EXPECT_EQ(r.outcome, Outcome::kDone);
  EXPECT_EQ(r.balance, 99);
  EXPECT_EQ(r.last_sequence_nr, 2);
  EXPECT_EQ(r.replayed_events, 2);
}

TEST_F(BankTest, EveryCommandWaitingForARecoveryThatFailsGetsTheReason) {
  // A gap: the event at 2 was rejected (no serializer), its number used up.
  ASSERT_OK(kit_.WriteEvents("account-1", {{1, Payload::Of(Opened{})}}));
  ASSERT_FALSE(
      kit_.WriteEvents("account-1", {{2, Payload::Of(NeverSerialized{})}})
          .ok());
  ASSERT_OK(
      kit_.WriteEvents("account-1", {{3, Payload::Of(Deposited{1, {}})}}));
  ActorRef region = StartRegion();
  OpenAtEnd open_at_end{*gate_};
  // The recovery waits at the gate while the commands come.
  region.Tell(GetBalance{1}, kit_.TestActor());
  region.Tell(Deposit{1, 5}, kit_.TestActor());
  region.Tell(Withdraw{1, 1}, kit_.TestActor());
  gate_->AllowAll();
  for (int i = 0; i < 3; ++i) {
    AccountReply r = kit_.ExpectMsg<AccountReply>(kExpectTimeout);
    EXPECT_EQ(r.outcome, Outcome::kFailed);
    EXPECT_EQ(r.account, 1);
    EXPECT_THAT(r.reason, HasSubstr("\"account-1\""));
    EXPECT_THAT(r.reason, HasSubstr("sequence number 3"));
  }

  // The next command starts a new incarnation, which fails the same way.
  AccountReply again = Send(region, Deposit{1, 1});
  EXPECT_EQ(again.outcome, Outcome::kFailed);
  EXPECT_THAT(again.reason, HasSubstr("sequence number 3"));
  // A command for the account that never reached it (as one a shard
  // drops) is not blamed on the recovery.
  kit_.Sys().DeadLetters().Tell(Deposit{1, 2}, kit_.TestActor());
  AccountReply dropped = kit_.ExpectMsg<AccountReply>(kExpectTimeout);
  EXPECT_EQ(dropped.outcome, Outcome::kFailed);
  EXPECT_EQ(dropped.amount, 2);
  EXPECT_THAT(dropped.reason, HasSubstr("was not delivered"));
  EXPECT_THAT(dropped.reason, Not(HasSubstr("sequence number 3")));
  // The other accounts are not affected.
  EXPECT_EQ(Send(region, OpenAccount{6}).outcome, Outcome::kDone);
  EXPECT_EQ(Send(region, Deposit{6, 8}).balance, 8);
}

// Passivated while it recovers (here beyond an active-entity limit of one;
// the idle timeout does the same), an account still takes the commands
// that came before its stop message: StopAccount waits for them.
TEST_F(BankTest, APassivatedAccountTakesTheCommandsThatCameBefore) {
  ASSERT_OK(kit_.WriteEvents("account-1", {{1, Payload::Of(Opened{})}}));
  ActorRef region = StartRegion([](EntityRegionSettings& s) {
    s.number_of_shards = 1;
    s.active_entity_limit = 1;
  });
  OpenAtEnd open_at_end{*gate_};
  region.Tell(Deposit{1, 10}, kit_.TestActor());  // waits for the recovery
  region.Tell(OpenAccount{2}, kit_.TestActor());  // passivates account 1
  region.Tell(sharding::GetShardRegionState{}, kit_.TestActor());
  // The shard has started the passivation before it answers.
  kit_.ExpectMsg<sharding::CurrentShardRegionState>(kExpectTimeout);
  gate_->AllowAll();
  std::vector<AccountReply> replies = {
      kit_.ExpectMsg<AccountReply>(kExpectTimeout),
      kit_.ExpectMsg<AccountReply>(kExpectTimeout)};
  std::sort(replies.begin(), replies.end(),
            [](const AccountReply& a, const AccountReply& b) {
              return a.account < b.account;
            });
  EXPECT_EQ(replies[0].account, 1);
  EXPECT_EQ(replies[0].outcome, Outcome::kDone);
  EXPECT_EQ(replies[0].balance, 10);
  EXPECT_EQ(replies[1].account, 2);
  EXPECT_EQ(replies[1].outcome, Outcome::kDone);

  // A new incarnation of account 1 replays both its events: the first one
  // stopped after the deposit.
  AccountReply after = Send(region, GetBalance{1});
  EXPECT_EQ(after.balance, 10);
  EXPECT_EQ(after.last_sequence_nr, 2);
  EXPECT_EQ(after.replayed_events, 2);
}

}  // namespace
}  // namespace cairn::examples::bank
