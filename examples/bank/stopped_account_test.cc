// An account stopped from outside (as its shard stops it when it loses its
// lease) answers the commands it had, and the bank answers those queued
// for it: none waits for an answer that never comes.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/ask.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "examples/bank/account.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "examples/bank/recovery_progress.h"
#include "examples/bank/test_support.h"
#include "examples/bank/undelivered.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::examples::bank {
namespace {

using actor::ActorRef;
using actor::Props;
using persistence::AtomicWrite;
using serialization::Payload;
using testing::BankTestKit;
using testing::GatedJournal;
using ::testing::HasSubstr;
using testing::kExpectTimeout;
using testing::OpenAtEnd;
using testing::ReplayGate;
using testing::WrapJournal;
using Outcome = AccountReply::Outcome;

// Holds the writes that come once Hold() was called, until Release().
class WriteHold {
 public:
  void Hold() {
    base::MutexLock lock(&mu_);
    holding_ = true;
  }
  // Whether a write came within kExpectTimeout.
  bool AwaitHeld() {
    const absl::Time deadline = absl::Now() + kExpectTimeout;
    base::MutexLock lock(&mu_);
    while (held_.empty()) {
      if (changed_.WaitWithDeadline(&mu_, deadline)) return !held_.empty();
    }
    return true;
  }
  // Sends what was held on, and lets everything through from now on.
  void Release() {
    std::vector<std::function<void()>> held;
    {
      base::MutexLock lock(&mu_);
      holding_ = false;
      held.swap(held_);
    }
    for (auto& send : held) send();
  }
  // Runs `send` now, or holds it.
  void Pass(std::function<void()> send) {
    {
      base::MutexLock lock(&mu_);
      if (holding_) {
        held_.push_back(std::move(send));
        changed_.SignalAll();
        return;
      }
    }
    send();
  }

 private:
  base::Mutex mu_;
  base::CondVar changed_;
  bool holding_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::function<void()>> held_ ABSL_GUARDED_BY(mu_);
};

// Holds writes, and the replays after them (journal.h's read after write:
// a replay sees the writes submitted before it).
class HeldJournal final : public persistence::JournalWrapper {
 public:
  HeldJournal(std::unique_ptr<persistence::Journal> inner,
              std::shared_ptr<WriteHold> hold)
      : JournalWrapper(std::move(inner)), hold_(std::move(hold)) {}

  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event,
                           DoneCallback done) override {
    auto event = std::make_shared<ReplayCallback>(std::move(on_event));
    auto callback = std::make_shared<DoneCallback>(std::move(done));
    hold_->Pass([this, persistence_id, from_sequence_nr, to_sequence_nr, max,
                 event, callback] {
      JournalWrapper::AsyncReplayMessages(
          persistence_id, from_sequence_nr, to_sequence_nr, max,
          std::move(*event), std::move(*callback));
    });
  }

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    auto shared = std::make_shared<std::vector<AtomicWrite>>(std::move(writes));
    auto callback = std::make_shared<WriteCallback>(std::move(done));
    hold_->Pass([this, shared, callback] {
      JournalWrapper::AsyncWriteMessages(std::move(*shared),
                                         std::move(*callback));
    });
  }

 private:
  const std::shared_ptr<WriteHold> hold_;
};

// Whether `writes` are past an account's Opened event (its first).
bool PastOpened(const std::vector<AtomicWrite>& writes) {
  return !writes.empty() && !writes[0].events.empty() &&
         writes[0].events[0].sequence_nr > 1;
}

// Refuses every write, as a journal refuses an event it cannot store (or
// one whose fence names a lease its writer no longer holds); with
// `after_opened`, only those past the Opened event.
class RefusingJournal final : public persistence::JournalWrapper {
 public:
  explicit RefusingJournal(
      std::unique_ptr<persistence::Journal> inner,
      absl::Status why = absl::InvalidArgumentError("refused by the test"),
      bool after_opened = false)
      : JournalWrapper(std::move(inner)),
        why_(std::move(why)),
        after_opened_(after_opened) {}
  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    if (after_opened_ && !PastOpened(writes)) {
      JournalWrapper::AsyncWriteMessages(std::move(writes), std::move(done));
      return;
    }
    std::move(done)(absl::OkStatus(),
                    std::vector<absl::Status>(writes.size(), why_));
  }

 private:
  const absl::Status why_;
  const bool after_opened_;
};

// Fails every write past the Opened event, as a journal that lost its
// store.
class FailingJournal final : public persistence::JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    if (!PastOpened(writes)) {
      JournalWrapper::AsyncWriteMessages(std::move(writes), std::move(done));
      return;
    }
    std::move(done)(absl::UnavailableError("the store is gone"), {});
  }
};

// The held write is stored once released: the journal holds an event like
// the command's at its sequence number, which may also be another writer's
// same deposit, so the answer is "may or may not be stored", with why.
TEST(StoppedAccountTest, AnAccountStoppedWhileWritingAnswersThatCommand) {
  auto hold = std::make_shared<WriteHold>();
  BankTestKit kit([hold](std::unique_ptr<persistence::Journal> inner) {
    return std::make_unique<HeldJournal>(std::move(inner), hold);
  });
  struct ReleaseAtEnd {
    WriteHold& hold;
    ~ReleaseAtEnd() { hold.Release(); }
  } release{*hold};
  ActorRef account = kit.Sys().ActorOf(Props::Create<Account>(2));
  account.Tell(OpenAccount{2});
  ASSERT_EQ(kit.ExpectMsg<AccountReply>(kExpectTimeout).outcome,
            Outcome::kDone);

  hold->Hold();
  account.Tell(Deposit{2, 50});
  ASSERT_TRUE(hold->AwaitHeld());
  kit.Watch(account);
  kit.Sys().Stop(account);
  kit.ExpectTerminated(account, kExpectTimeout);
  hold->Release();
  const AccountReply reply = kit.ExpectMsg<AccountReply>(kExpectTimeout);
  EXPECT_EQ(reply.outcome, Outcome::kFailed);
  EXPECT_EQ(reply.amount, 50);
  EXPECT_THAT(reply.reason,
              HasSubstr("account 2 stopped before its event 2 was confirmed, "
                        "and the journal's event 2 is like it"));
  EXPECT_THAT(reply.reason, HasSubstr("it may or may not be stored"));
}

// A write the journal refuses (here as its fence check refuses a write of
// a writer whose lease is gone) after the account stopped: the command is
// answered "not stored", with its amount.
TEST(StoppedAccountTest, AWriteRefusedAfterTheStopIsAnsweredNotStored) {
  auto hold = std::make_shared<WriteHold>();
  BankTestKit kit([hold](std::unique_ptr<persistence::Journal> inner) {
    return std::make_unique<HeldJournal>(
        std::make_unique<RefusingJournal>(
            std::move(inner),
            absl::FailedPreconditionError(
                "persistence id 'account-2': sequence numbers 2 to 2 not "
                "stored: lease 'accounts-2' is held by 'b'"),
            /*after_opened=*/true),
        hold);
  });
  struct ReleaseAtEnd {
    WriteHold& hold;
    ~ReleaseAtEnd() { hold.Release(); }
  } release{*hold};
  ASSERT_OK(kit.WriteEvents("account-2", {{1, Payload::Of(Opened{})}}));
  ActorRef account = kit.Sys().ActorOf(Props::Create<Account>(2));
  // Recovered (the hold holds replays too) once it answers.
  account.Tell(GetBalance{2});
  ASSERT_EQ(kit.ExpectMsg<AccountReply>(kExpectTimeout).outcome,
            Outcome::kDone);

  hold->Hold();
  account.Tell(Deposit{2, 50});
  ASSERT_TRUE(hold->AwaitHeld());
  kit.Watch(account);
  kit.Sys().Stop(account);
  kit.ExpectTerminated(account, kExpectTimeout);
  hold->Release();
  const AccountReply reply = kit.ExpectMsg<AccountReply>(kExpectTimeout);
  EXPECT_EQ(reply.outcome, Outcome::kFailed);
  EXPECT_EQ(reply.amount, 50);
  EXPECT_THAT(reply.reason, HasSubstr("not stored: account 2 stopped"));
  EXPECT_THAT(reply.reason, ::testing::Not(HasSubstr("may or may not")));
}

// A deposit whose event the journal refuses, or whose write fails, is
// answered with its amount.
// The reply to a deposit of `amount` to open account 9 through `wrap`.
AccountReply DepositThrough(WrapJournal wrap, int64_t amount) {
  BankTestKit kit(std::move(wrap));
  EXPECT_OK(kit.WriteEvents("account-9", {{1, Payload::Of(Opened{})}}));
  ActorRef account = kit.Sys().ActorOf(Props::Create<Account>(9));
  account.Tell(Deposit{9, amount});
  return kit.ExpectMsg<AccountReply>(kExpectTimeout);
}

TEST(StoppedAccountTest, AFailedDepositNamesItsAmount) {
  const AccountReply refused = DepositThrough(
      [](std::unique_ptr<persistence::Journal> inner) {
        return std::make_unique<RefusingJournal>(
            std::move(inner), absl::InvalidArgumentError("refused by the test"),
            /*after_opened=*/true);
      },
      70);
  EXPECT_EQ(refused.outcome, Outcome::kFailed);
  EXPECT_EQ(refused.amount, 70);
  const AccountReply failed = DepositThrough(
      [](std::unique_ptr<persistence::Journal> inner) {
        return std::make_unique<FailingJournal>(std::move(inner));
      },
      80);
  EXPECT_EQ(failed.outcome, Outcome::kFailed);
  EXPECT_EQ(failed.amount, 80);
  EXPECT_THAT(failed.reason, HasSubstr("the store is gone"));
  EXPECT_THAT(failed.reason, HasSubstr("(it may or may not be stored)"));
}

// Not a stop, but the same promise: a refused event's command is answered,
// and a later stop answers nothing more.
TEST(StoppedAccountTest, ARefusedEventIsAnsweredAndNotAgainAtTheStop) {
  BankTestKit kit([](std::unique_ptr<persistence::Journal> inner) {
    return std::make_unique<RefusingJournal>(std::move(inner));
  });
  ActorRef account = kit.Sys().ActorOf(Props::Create<Account>(4));
  account.Tell(OpenAccount{4});
  const AccountReply reply = kit.ExpectMsg<AccountReply>(kExpectTimeout);
  EXPECT_EQ(reply.outcome, Outcome::kFailed);
  EXPECT_THAT(reply.reason, HasSubstr("not stored: "));
  EXPECT_THAT(reply.reason, HasSubstr("refused by the test"));
  kit.Watch(account);
  kit.Sys().Stop(account);
  kit.ExpectTerminated(account, kExpectTimeout);
  kit.ExpectNoMsg();
}

// Stopped while it recovers (its shard lost its lease), an account drops
// the commands it held for the recovery to dead letters, as any stopped
// actor; each is answered kFailed with its amount (undelivered.h).
TEST(StoppedAccountTest,
     AnAccountStoppedWhileItRecoversHasItsCommandsAnswered) {
  auto gate = std::make_shared<ReplayGate>();
  BankTestKit kit([gate](std::unique_ptr<persistence::Journal> inner) {
    return std::make_unique<GatedJournal>(std::move(inner), "account-3", gate);
  });
  OpenAtEnd open{*gate};
  auto progress = std::make_shared<RecoveryProgress>();
  AnswerUndeliveredCommands(kit.Sys(), progress);
  ASSERT_OK(kit.WriteEvents("account-3", {{1, Payload::Of(Opened{})}}));
  // The recovery waits at the gate; the commands wait in the account.
  ActorRef account = kit.Sys().ActorOf(Props::Create<Account>(3, progress));
  account.Tell(Deposit{3, 10}, kit.TestActor());
  account.Tell(Deposit{3, 20}, kit.TestActor());
  // Answered in mailbox order: the deposits are held once it is.
  account.Tell(actor::Identify{}, kit.TestActor());
  kit.ExpectMsg<actor::ActorIdentity>(kExpectTimeout);
  kit.Watch(account);
  kit.Sys().Stop(account);
  for (int64_t amount : {10, 20}) {
    const AccountReply reply = kit.ExpectMsg<AccountReply>(kExpectTimeout);
    EXPECT_EQ(reply.outcome, Outcome::kFailed);
    EXPECT_EQ(reply.amount, amount);
    EXPECT_THAT(reply.reason,
                HasSubstr("the command for account 3 was not delivered (it "
                          "did not take effect)"));
  }
  kit.ExpectTerminated(account, kExpectTimeout);
}

// What was queued for an account that stopped at once becomes a dead
// letter: BankSystem answers it.
TEST(StoppedAccountTest, ACommandThatReachesNoAccountIsAnsweredFailed) {
  absl::StatusOr<persistence::testing::TempDir> dir =
      persistence::testing::TempDir::Make();
  ASSERT_OK(dir);
  absl::StatusOr<std::unique_ptr<BankSystem>> bank =
      BankSystem::Start(StoreOptions{dir->path(), /*fsync=*/false});
  ASSERT_OK(bank);
  const AccountReply reply =
      actor::Ask<AccountReply>((*bank)->system().DeadLetters(), Deposit{7, 5},
                               kExpectTimeout)
          .get();
  EXPECT_EQ(reply.outcome, Outcome::kFailed);
  EXPECT_EQ(reply.account, 7);
  EXPECT_EQ(reply.amount, 5);
  EXPECT_THAT(reply.reason,
              HasSubstr("the command for account 7 was not delivered (it did "
                        "not take effect)"));
}

}  // namespace
}  // namespace cairn::examples::bank
