// The BankClient on the in-memory journal, with the replay of account 1
// held back event by event and the waiting measured on a manual clock: a
// call waits for a recovery as long as it progresses, however long that
// is in all, and fails once it stops, naming the account and how far its
// recovery got. And the accounts listed from the journal's persistence
// ids, with the balances of the open ones.
#include "examples/bank/client.h"

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/clock.h"
#include "base/status_testing.h"
#include "examples/bank/account_region.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "examples/bank/recovery_progress.h"
#include "examples/bank/test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence_query.h"
#include "serialization/payload.h"

namespace cairn::examples::bank {
namespace {

using serialization::Payload;
using ::testing::AllOf;
using testing::GatedJournal;
using ::testing::HasSubstr;
using testing::kExpectTimeout;
using testing::OpenAtEnd;
using testing::ReplayGate;

constexpr absl::Duration kIdle = absl::Seconds(10);

// Waits (in real time, up to kExpectTimeout) for `condition`.
bool WaitUntil(const std::function<bool()>& condition) {
  const absl::Time deadline = absl::Now() + kExpectTimeout;
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

class BankClientTest : public ::testing::Test {
 protected:
  BankClientTest()
      : gate_(std::make_shared<ReplayGate>()),
        progress_(std::make_shared<RecoveryProgress>(&clock_)),
        kit_(
            [gate = gate_](std::unique_ptr<persistence::Journal> inner) {
              return std::make_unique<GatedJournal>(std::move(inner),
                                                    "account-1", gate);
            },
            // A recovery's events reach the actor a batch at a time, and
            // its progress with them: batches of one let the gate stop the
            // replay at a known event.
            "akka.persistence.journal-plugin-fallback.replay-batch-size = 1") {}
  // The journal's thread may be waiting at the gate: it must not be when
  // the kit stops the actor system.
  ~BankClientTest() override { gate_->AllowAll(); }

  // Account 1: Opened, then deposits of 1..9 (events 2..10).
  void StoreAccount1() {
    std::vector<std::pair<int64_t, Payload>> events;
    events.emplace_back(1, Payload::Of(Opened{}));
    for (int64_t i = 1; i <= 9; ++i) {
      events.emplace_back(i + 1, Payload::Of(Deposited{i, {}}));
    }
    ASSERT_OK(kit_.WriteEvents("account-1", std::move(events)));
  }

  // The accounts' region reporting to progress_, and a client for it.
  BankClient StartBank() {
    absl::StatusOr<sharding::EntityRegionSettings> settings =
        AccountRegionSettings(kit_.Sys().Settings());
    EXPECT_OK(settings);
    absl::StatusOr<persistence::ReadJournal*> queries =
        persistence::PersistenceQuery::Get(kit_.Sys()).ReadJournalFor("");
    EXPECT_OK(queries);
    return BankClient(
        kit_.Sys().ActorOf(AccountRegionProps(*settings, progress_)), progress_,
        &kit_.Journal(), queries.ok() ? *queries : nullptr,
        Patience{kIdle, absl::Milliseconds(1)});
  }

  int64_t Reached(const std::string& persistence_id) const {
    const RecoveryProgress::Stream* s = progress_->Find(persistence_id);
    return s == nullptr ? -1 : s->sequence_nr();
  }

  std::shared_ptr<ReplayGate> gate_;
  actor::ManualClock clock_;  // of the waiting only; the actors' is real
  std::shared_ptr<RecoveryProgress> progress_;
  testing::BankTestKit kit_;
};

TEST_F(BankClientTest, ARecoveryThatStopsFailsTheCallNamingTheAccount) {
  StoreAccount1();
  BankClient client = StartBank();
  absl::StatusOr<int64_t> events = client.ExpectEvents({1});
  ASSERT_OK(events);
  EXPECT_EQ(*events, 10);

  gate_->Allow(3);
  std::future<absl::StatusOr<AccountReply>> reply = std::async(
      std::launch::async, [&] { return client.Call(GetBalance{1}); });
  OpenAtEnd open_at_end{*gate_};
  ASSERT_TRUE(WaitUntil([&] { return Reached("account-1") == 3; }));
  // The replay is stuck at event 3: the call gives up once the idle
  // timeout has passed on the waiting's clock.
  const absl::Time deadline = absl::Now() + kExpectTimeout;
  while (reply.wait_for(std::chrono::milliseconds(1)) !=
             std::future_status::ready &&
         absl::Now() < deadline) {
    clock_.Advance(kIdle);
  }
  ASSERT_EQ(reply.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  absl::StatusOr<AccountReply> r = reply.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(r.status().message(),
              AllOf(HasSubstr("account 1 (persistence id account-1)"),
                    HasSubstr("recovery"),
                    HasSubstr("no recovery made progress for 10s"),
                    HasSubstr("stuck at event 3 of 10")));
}

TEST_F(BankClientTest, ARecoveryLongerThanTheIdleTimeoutCompletesWhileItMoves) {
  StoreAccount1();
  BankClient client = StartBank();
  ASSERT_OK(client.ExpectEvents({1}));

  std::future<absl::StatusOr<AccountReply>> reply = std::async(
      std::launch::async, [&] { return client.Call(GetBalance{1}); });
  OpenAtEnd open_at_end{*gate_};
  // One event every 3/4 of the idle timeout: 7.5 idle timeouts in all.
  for (int64_t event = 1; event <= 10; ++event) {
    gate_->Allow(1);
    ASSERT_TRUE(WaitUntil([&] { return Reached("account-1") == event; }))
        << "event " << event;
    clock_.Advance(kIdle * 3 / 4);
  }
  ASSERT_EQ(reply.wait_for(absl::ToChronoNanoseconds(kExpectTimeout)),
            std::future_status::ready);
  absl::StatusOr<AccountReply> r = reply.get();
  ASSERT_OK(r);
  EXPECT_EQ(r->outcome, AccountReply::Outcome::kDone);
  EXPECT_EQ(r->balance, 45);
  EXPECT_EQ(r->last_sequence_nr, 10);
  EXPECT_EQ(progress_->Find("account-1")->expected(), 10);
  EXPECT_TRUE(progress_->Find("account-1")->finished());
}

TEST_F(BankClientTest, TheAccountsAreThePersistenceIdsOfAccounts) {
  gate_->AllowAll();
  StoreAccount1();
  for (int64_t account : {10, 9}) {
    ASSERT_OK(kit_.WriteEvents(AccountPersistenceId(account),
                               {{1, Payload::Of(Opened{})}}));
  }
  // Not an account's: the old registry's stream, an id of another form.
  ASSERT_OK(kit_.WriteEvents("bank", {{1, Payload::Of(Opened{})}}));
  ASSERT_OK(kit_.WriteEvents("account-07", {{1, Payload::Of(Opened{})}}));
  BankClient client = StartBank();
  // An account never opened: refused, and it stores nothing.
  absl::StatusOr<AccountReply> none = client.Call(GetBalance{5});
  ASSERT_OK(none);
  EXPECT_EQ(none->outcome, AccountReply::Outcome::kRefused);

  absl::StatusOr<std::vector<int64_t>> accounts = client.ListAccounts();
  ASSERT_OK(accounts);
  EXPECT_EQ(*accounts, (std::vector<int64_t>{1, 9, 10}));  // by number
  absl::StatusOr<std::vector<AccountReply>> balances =
      client.OpenBalances({1, 5, 9});
  ASSERT_OK(balances);
  ASSERT_EQ(balances->size(), 2u);  // 5 left out: never opened
  EXPECT_EQ((*balances)[0].account, 1);
  EXPECT_EQ((*balances)[0].balance, 45);
  EXPECT_EQ((*balances)[1].account, 9);
}

}  // namespace
}  // namespace cairn::examples::bank
