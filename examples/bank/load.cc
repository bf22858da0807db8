// `bank load`: deposits as fast as the journal takes them, each one event
// persisted before its ack is printed. The crash test kills it midway and
// checks that no acked deposit is lost. A deposit that fails (the store
// failed the write, the account could not recover) is printed as failed,
// and the load goes on: its account is started again by the next deposit,
// on a store that may have come back (the PostgreSQL journal reconnects);
// the load fails at the end if any deposit did.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/ask.h"
#include "actor/props.h"
#include "base/mutex.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/commands.h"
#include "examples/bank/data_dir.h"
#include "examples/bank/line_writer.h"
#include "examples/bank/progress_bar.h"
#include "examples/bank/protocol.h"

namespace cairn::examples::bank {
namespace {

using Outcome = AccountReply::Outcome;

// The load fails when no deposit has been acknowledged for this long.
constexpr absl::Duration kStallTimeout = absl::Seconds(60);
// The load gives up when this many deposits in a row failed, and at least
// twice its window (every deposit in flight when the store went away, and
// the next round too): a store that failed a dropped connection's
// deposits takes the next ones; one that fails everything (a full disk)
// will not, and trying every remaining deposit would only take time.
constexpr int64_t kGiveUpAfterFailuresInARow = 200;

// Deposits sent but not yet answered: between the main thread, which
// sends, and the AckSink, which hears the answers. Bounding the deposits in
// flight keeps the mailboxes short; a persistent actor puts the commands
// that arrive during a write back in its mailbox after every write, so a
// long queue would cost time for every event.
class LoadTracker {
 public:
  explicit LoadTracker(int64_t window)
      : window_(window),
        give_up_after_(std::max(kGiveUpAfterFailuresInARow, 2 * window)) {}

  // Waits until a deposit may be sent, and counts it as sent.
  absl::Status BeforeSend() {
    base::MutexLock lock(&mu_);
    absl::Status s = AwaitLocked(&LoadTracker::WindowHasRoom);
    if (s.ok()) ++sent_;
    return s;
  }
  // Waits until every deposit sent is answered.
  absl::Status AwaitAll() {
    base::MutexLock lock(&mu_);
    return AwaitLocked(&LoadTracker::AllAnswered);
  }

  void OnAck() { OnAnswer(/*failed=*/false, ""); }
  void OnFailure(std::string reason) {
    OnAnswer(/*failed=*/true, std::move(reason));
  }
  // Answered, stored or not: for the progress bar.
  int64_t answered() const { return answered_.load(); }
  int64_t failed() const { return failed_.load(); }

 private:
  void OnAnswer(bool failed, std::string reason) {
    {
      // Under the lock, so a waiter between its check and its wait cannot
      // miss the change.
      base::MutexLock lock(&mu_);
      if (failed) {
        failed_.fetch_add(1);
        if (++failed_in_a_row_ == give_up_after_) {
          given_up_ =
              absl::StrCat("gave up after ", failed_in_a_row_,
                           " deposits in a row failed, the last: ", reason);
        }
      } else {
        failed_in_a_row_ = 0;
      }
      answered_.fetch_add(1);
    }
    changed_.SignalAll();
  }

  bool WindowHasRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return sent_ - answered_.load() < window_;
  }
  bool AllAnswered() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return answered_.load() == sent_;
  }

  // Waits until `ready` holds; fails once given up, or when no deposit
  // was answered for kStallTimeout. (A member pointer, not a lambda: the
  // analysis sees a lambda as holding no lock.)
  absl::Status AwaitLocked(bool (LoadTracker::*ready)() const)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (true) {
      if (given_up_.has_value()) return absl::UnavailableError(*given_up_);
      if ((this->*ready)()) return absl::OkStatus();
      const int64_t before = answered_.load();
      const absl::Time stall_at = absl::Now() + kStallTimeout;
      while (!given_up_.has_value() && !(this->*ready)() &&
             answered_.load() == before) {
        if (changed_.WaitWithDeadline(&mu_, stall_at) &&
            !given_up_.has_value() && !(this->*ready)() &&
            answered_.load() == before) {
          return absl::DeadlineExceededError(
              absl::StrCat("no deposit was answered for ",
                           absl::FormatDuration(kStallTimeout)));
        }
      }
    }
  }

  const int64_t window_;
  base::Mutex mu_;
  base::CondVar changed_;
  const int64_t give_up_after_;
  int64_t sent_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_in_a_row_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<std::string> given_up_ ABSL_GUARDED_BY(mu_);
  // Changed under mu_; atomic so that the progress bar can read them
  // without.
  std::atomic<int64_t> answered_{0};
  std::atomic<int64_t> failed_{0};
};

// The sender of every deposit: prints "ack ACCOUNT AMOUNT" for each stored
// one, "failed ACCOUNT AMOUNT REASON" for each other.
class AckSink final : public actor::Actor {
 public:
  AckSink(std::shared_ptr<LoadTracker> tracker,
          std::shared_ptr<BatchedLineWriter> out)
      : tracker_(std::move(tracker)), out_(std::move(out)) {
    Receive<AccountReply>([this](const AccountReply& r) {
      if (r.outcome == Outcome::kDone) {
        out_->Add(absl::StrCat("ack ", r.account, " ", r.amount));
        tracker_->OnAck();
      } else {
        std::string reason = OneLine(r.reason);
        out_->Add(
            absl::StrCat("failed ", r.account, " ", r.amount, " ", reason));
        tracker_->OnFailure(std::move(reason));
      }
    });
  }

 private:
  const std::shared_ptr<LoadTracker> tracker_;
  const std::shared_ptr<BatchedLineWriter> out_;
};

// Opens accounts 0..n-1 (already open is fine: a load may add to a
// store), recovering those that exist, with a progress bar of their
// recoveries on a terminal.
absl::Status OpenAccounts(const BankClient& bank, int64_t n) {
  constexpr size_t kWindow = 64;  // each persists an Opened or recovers
  std::vector<int64_t> accounts(n);
  for (int64_t i = 0; i < n; ++i) accounts[i] = i;
  std::optional<ProgressBar> bar;
  if (ProgressBar::OnTerminal()) {
    absl::StatusOr<int64_t> events = bank.ExpectEvents(accounts);
    if (!events.ok()) return events.status();
    if (*events > 0) {
      bar.emplace(*events, RecoveredSince(bank.progress()), "recovering");
    }
  }
  return bank.CallEach<OpenAccount>(
      accounts, kWindow, [](int64_t account) { return OpenAccount{account}; },
      [](const AccountReply& r) {
        if (r.outcome == Outcome::kFailed ||
            (r.outcome == Outcome::kRefused && !r.open)) {
          return absl::UnavailableError(
              absl::StrCat("opening account ", r.account, ": ", r.reason));
        }
        return absl::OkStatus();
      });
}

}  // namespace

absl::Status RunLoad(const StoreLocation& store, const LoadOptions& options) {
  const DataDir& data = store.data;
  if (!store.on_postgres()) {
    if (absl::Status s = PrepareForWriting(data.path); !s.ok()) return s;
    if (absl::Status s = CheckNotInUse(data.path); !s.ok()) return s;
    if (data.is_default) {
      std::fprintf(stderr, "bank load: no --data given, using %s\n",
                   data.path.c_str());
    }
  }
  // Made before the actor system, so it outlives the AckSink.
  auto out = std::make_shared<BatchedLineWriter>(STDOUT_FILENO);
  absl::StatusOr<std::unique_ptr<BankSystem>> system = BankSystem::Start(
      StoreOptions{data.path, options.fsync,
                   /*create_if_missing=*/true,
                   /*read_only=*/false, store.postgres_url, store.schema});
  if (!system.ok()) return system.status();
  const actor::ActorRef accounts = (*system)->accounts();
  if (absl::Status s = OpenAccounts((*system)->client(), options.accounts);
      !s.ok()) {
    return s;
  }

  // A few deposits in flight per account, so that each has its next one
  // waiting while one is written (and group commit fills each fsync with
  // every account's). More would only wait in the accounts' stashes.
  // Fewer than the accounts kept in memory, so that none is passivated
  // while its deposit waits.
  const int64_t window = std::clamp<int64_t>(
      4 * options.accounts, 4,
      std::max<int64_t>(4,
                        std::min<int64_t>(65536, kDefaultActiveAccounts / 2)));
  auto tracker = std::make_shared<LoadTracker>(window);
  const actor::ActorRef sink = (*system)->system().ActorOf(
      actor::Props::Create<AckSink>(tracker, out), "acks");
  std::optional<ProgressBar> bar;
  if (ProgressBar::OnTerminal()) {
    bar.emplace(options.ops, [tracker] { return tracker->answered(); });
  }

  const absl::Time start = absl::Now();
  for (int64_t i = 0; i < options.ops; ++i) {
    if (absl::Status s = tracker->BeforeSend(); !s.ok()) return s;
    accounts.Tell(Deposit{i % options.accounts, i + 1}, sink);
  }
  if (absl::Status s = tracker->AwaitAll(); !s.ok()) return s;
  const absl::Duration elapsed = absl::Now() - start;
  out->Flush();
  bar.reset();

  const double seconds = std::max(absl::ToDoubleSeconds(elapsed), 1e-9);
  std::fprintf(stderr,
               "%.0f events/s (%lld deposits to %lld accounts in %.2f s, "
               "%s)\n",
               static_cast<double>(options.ops) / seconds,
               static_cast<long long>(options.ops),
               static_cast<long long>(options.accounts), seconds,
               store.on_postgres() ? "on PostgreSQL"
               : options.fsync     ? "fsync on"
                                   : "fsync off");
  if (const int64_t failed = tracker->failed(); failed > 0) {
    return absl::UnavailableError(absl::StrCat(
        failed, " of ", options.ops,
        " deposits failed (each on stdout as \"failed ACCOUNT AMOUNT "
        "REASON\"; the reason says whether it may still be stored)"));
  }
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank
