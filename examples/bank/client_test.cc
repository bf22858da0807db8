// The BankClient on the in-memory journal, with the replay of account 1
// held back event by event and the waiting measured on a manual clock: a
// call waits for a recovery as long as it progresses, however long that
// is in all, and fails once it stops, naming the account and how far its
// recovery got. And the balances leave out accounts never opened.
#include "examples/bank/client.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/clock.h"
#include "actor/future.h"
#include "actor/props.h"
#include "examples/bank/bank.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "examples/bank/recovery_progress.h"
#include "examples/bank/test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/payload.h"

namespace cairn::examples::bank {
namespace {

using persistence::Payload;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::kExpectTimeout;

constexpr absl::Duration kIdle = absl::Seconds(10);

// Lets the replayed events through one at a time, as the test allows,
// holding the journal's thread meanwhile.
class ReplayGate {
 public:
  void Allow(int events) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      allowed_ += events;
    }
    changed_.notify_all();
  }
  void AllowAll() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      all_ = true;
    }
    changed_.notify_all();
  }
  void Pass() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [this] { return all_ || allowed_ > 0; });
    if (!all_) --allowed_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int allowed_ = 0;   // guarded by mu_
  bool all_ = false;  // guarded by mu_
};

// The replay of `id` goes through the gate; everything else straight on.
class GatedJournal final : public persistence::JournalWrapper {
 public:
  GatedJournal(std::unique_ptr<persistence::Journal> inner, std::string id,
               std::shared_ptr<ReplayGate> gate)
      : JournalWrapper(std::move(inner)),
        id_(std::move(id)),
        gate_(std::move(gate)) {}

  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event,
                           DoneCallback done) override {
    if (persistence_id == id_) {
      on_event = [gate = gate_, on_event = std::move(on_event)](
                     const persistence::PersistentRepr& event) mutable {
        gate->Pass();
        on_event(event);
      };
    }
    JournalWrapper::AsyncReplayMessages(std::move(persistence_id),
                                        from_sequence_nr, to_sequence_nr, max,
                                        std::move(on_event), std::move(done));
  }

 private:
  const std::string id_;
  const std::shared_ptr<ReplayGate> gate_;
};

// Opens the gate when a test ends, before its pending call is waited for
// (declare it after the std::future): a failed assertion must not leave
// the call waiting for a replay that never goes on.
struct OpenAtEnd {
  ReplayGate& gate;
  ~OpenAtEnd() { gate.AllowAll(); }
};

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
        kit_([gate = gate_](std::unique_ptr<persistence::Journal> inner) {
          return std::make_unique<GatedJournal>(std::move(inner), "account-1",
                                                gate);
        }) {}
  // The journal's thread may be waiting at the gate: it must not be when
  // the kit stops the actor system.
  ~BankClientTest() override { gate_->AllowAll(); }

  // Account 1: Opened, then deposits of 1..9 (events 2..10).
  void StoreAccount1() {
    ASSERT_TRUE(kit_.WriteEvents(kBankPersistenceId,
                                 {{1, Payload::Of(AccountRegistered{1})}})
                    .ok());
    std::vector<std::pair<int64_t, Payload>> events;
    events.emplace_back(1, Payload::Of(Opened{}));
    for (int64_t i = 1; i <= 9; ++i) {
      events.emplace_back(i + 1, Payload::Of(Deposited{i, {}}));
    }
    ASSERT_TRUE(kit_.WriteEvents("account-1", std::move(events)).ok());
  }

  // A Bank reporting to progress_, recovered, and a client for it.
  BankClient StartBank() {
    actor::Promise<void> recovered;
    actor::ActorRef bank =
        kit_.Sys().ActorOf(actor::Props::Create<Bank>(recovered, progress_));
    EXPECT_TRUE(recovered.GetFuture().wait_for(kExpectTimeout));
    return BankClient(bank, progress_, &kit_.Journal(),
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
  ASSERT_TRUE(events.ok()) << events.status();
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
  ASSERT_TRUE(client.ExpectEvents({1}).ok());

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
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcome, AccountReply::Outcome::kDone);
  EXPECT_EQ(r->balance, 45);
  EXPECT_EQ(r->last_sequence_nr, 10);
  EXPECT_EQ(progress_->Find("account-1")->expected(), 10);
  EXPECT_TRUE(progress_->Find("account-1")->finished());
}

TEST_F(BankClientTest, BalancesLeaveOutAccountsRegisteredButNeverOpened) {
  gate_->AllowAll();
  StoreAccount1();
  // Account 5 registered, then a crash before its Opened event.
  ASSERT_TRUE(kit_.WriteEvents(kBankPersistenceId,
                               {{2, Payload::Of(AccountRegistered{5})}})
                  .ok());
  BankClient client = StartBank();
  absl::StatusOr<std::vector<int64_t>> accounts = client.ListAccounts();
  ASSERT_TRUE(accounts.ok()) << accounts.status();
  EXPECT_EQ(*accounts, (std::vector<int64_t>{1, 5}));
  absl::StatusOr<std::vector<AccountReply>> balances =
      client.OpenBalances(*accounts);
  ASSERT_TRUE(balances.ok()) << balances.status();
  ASSERT_EQ(balances->size(), 1u);
  EXPECT_EQ((*balances)[0].account, 1);
  EXPECT_EQ((*balances)[0].balance, 45);
}

}  // namespace
}  // namespace cairn::examples::bank
