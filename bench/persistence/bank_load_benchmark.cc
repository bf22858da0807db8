// `bank load` against raw RocksDB (issue 19: "bank load, 1000 accounts, 1M
// deposits, vs raw writes of the same events in 1000-event batches: >= 0.7x,
// fsync off and on").
//
// cairn side: the bank example's own system (examples/bank/bank_system.h:
// the accounts' region on the RocksDB journal) opens the accounts, then
// takes deposits spread round-robin over them, as `bank load` sends them: a
// few in flight per account, each acknowledged once its event is persisted.
// Timed from the first deposit sent to the last ack: deposits per second.
// raw side: the tagged Deposited events the journal stored are read back
// from its store in the order it wrote them, and written again to a new
// database straight on librocksdb, in WriteBatches of 1000 events, each
// event with its tag-index entry (the same keys and values), same fsync
// setting: events per second. A row per fsync setting, printed as it
// finishes: both rates, cairn / raw, and the target.
//
//   bazel run -c opt //bench/persistence:bank_load_benchmark [-- --quick]
//
// --quick: 100 accounts and 20,000 deposits, to check that it works; the
// full run is 1000 accounts and 1,000,000 deposits. Stores go under
// $TEST_TMPDIR, else $TMPDIR, else /tmp.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/props.h"
#include "base/mutex.h"
#include "bench/persistence/bank_load_benchmark_raw.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/support/bench_main.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/client.h"
#include "examples/bank/events.h"
#include "examples/bank/protocol.h"
#include "persistence/storage/testing/temp_dir.h"

namespace cairn::bench {
namespace {

using examples::bank::AccountReply;
using examples::bank::BankClient;
using examples::bank::BankSystem;
using examples::bank::Deposit;
using examples::bank::OpenAccount;
using examples::bank::StoreOptions;
using persistence::testing::TempDir;
using Outcome = AccountReply::Outcome;

// Events per rocksdb::WriteBatch on the raw side.
constexpr int64_t kRawBatch = 1000;
// Issue 19's target for cairn / raw.
constexpr double kTarget = 0.7;
// A run fails when no deposit has been acknowledged for this long.
constexpr absl::Duration kStallTimeout = absl::Seconds(60);

struct Plan {
  int64_t accounts;
  int64_t deposits;
};
constexpr Plan kFullPlan{1000, 1'000'000};
constexpr Plan kQuickPlan{100, 20'000};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bank_load_benchmark: %s\n", what.c_str());
  std::exit(1);
}

// Deposits sent and acknowledged, between the main thread, which sends at
// most `window` ahead of the acks, and the AckSink, which hears them: the
// flow control of `bank load` (examples/bank/load.cc).
class DepositWindow {
 public:
  explicit DepositWindow(int64_t window) : window_(window) {}

  // Waits until a deposit may be sent, and counts it as sent.
  absl::Status BeforeSend() {
    base::MutexLock lock(&mu_);
    absl::Status s = AwaitLocked(&DepositWindow::HasRoom);
    if (s.ok()) ++sent_;
    return s;
  }
  // Waits until every deposit sent is acknowledged.
  absl::Status AwaitAll() {
    base::MutexLock lock(&mu_);
    return AwaitLocked(&DepositWindow::AllAcked);
  }

  void OnAck() {
    {
      base::MutexLock lock(&mu_);
      ++acked_;
    }
    changed_.SignalAll();
  }
  void OnFailure(std::string reason) {
    {
      base::MutexLock lock(&mu_);
      if (!failure_.has_value()) failure_ = std::move(reason);
    }
    changed_.SignalAll();
  }

 private:
  // Fails with the first failure heard, or once no ack came for
  // kStallTimeout.
  // (A member pointer, not a lambda: the analysis sees a lambda as
  // holding no lock.)
  absl::Status AwaitLocked(bool (DepositWindow::*ready)() const)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (true) {
      if (failure_.has_value()) return absl::UnavailableError(*failure_);
      if ((this->*ready)()) return absl::OkStatus();
      const int64_t before = acked_;
      const absl::Time stall_at = absl::Now() + kStallTimeout;
      while (!failure_.has_value() && !(this->*ready)() && acked_ == before) {
        if (changed_.WaitWithDeadline(&mu_, stall_at) &&
            !failure_.has_value() && !(this->*ready)() && acked_ == before) {
          return absl::DeadlineExceededError(
              absl::StrCat("no deposit was acknowledged for ",
                           absl::FormatDuration(kStallTimeout)));
        }
      }
    }
  }
  bool HasRoom() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return sent_ - acked_ < window_;
  }
  bool AllAcked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return acked_ == sent_;
  }

  const int64_t window_;
  base::Mutex mu_;
  base::CondVar changed_;
  int64_t sent_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t acked_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<std::string> failure_ ABSL_GUARDED_BY(mu_);
};

// The sender of every deposit: counts the acks.
class AckSink final : public actor::Actor {
 public:
  explicit AckSink(std::shared_ptr<DepositWindow> window)
      : window_(std::move(window)) {
    Receive<AccountReply>([this](const AccountReply& r) {
      if (r.outcome == Outcome::kDone) {
        window_->OnAck();
      } else {
        window_->OnFailure(absl::StrCat("deposit of ", r.amount, " to account ",
                                        r.account, ": ", r.reason));
      }
    });
  }

 private:
  const std::shared_ptr<DepositWindow> window_;
};

// Opens accounts 0..n-1 of a new store (not timed).
absl::Status OpenAccounts(const BankClient& bank, int64_t n) {
  std::vector<int64_t> accounts(n);
  for (int64_t i = 0; i < n; ++i) accounts[i] = i;
  return bank.CallEach<OpenAccount>(
      accounts, /*window=*/64,
      [](int64_t account) { return OpenAccount{account}; },
      [](const AccountReply& r) {
        if (r.outcome != Outcome::kDone) {
          return absl::UnavailableError(
              absl::StrCat("opening account ", r.account, ": ", r.reason));
        }
        return absl::OkStatus();
      });
}

// The bank, on a new store in `dir`, takes plan.deposits deposits to
// plan.accounts accounts; returns deposits per second.
absl::StatusOr<double> CairnLoad(const std::string& dir, const Plan& plan,
                                 bool fsync) {
  absl::StatusOr<std::unique_ptr<BankSystem>> bank =
      BankSystem::Start(StoreOptions{dir, fsync});
  if (!bank.ok()) return bank.status();
  if (absl::Status s = OpenAccounts((*bank)->client(), plan.accounts);
      !s.ok()) {
    return s;
  }
  // As `bank load`: a few deposits in flight per account.
  auto window = std::make_shared<DepositWindow>(
      std::clamp<int64_t>(4 * plan.accounts, 4, 65536));
  const actor::ActorRef sink =
      (*bank)->system().ActorOf(actor::Props::Create<AckSink>(window), "acks");
  const actor::ActorRef& accounts = (*bank)->accounts();

  Stopwatch clock;
  for (int64_t i = 0; i < plan.deposits; ++i) {
    if (absl::Status s = window->BeforeSend(); !s.ok()) return s;
    accounts.Tell(Deposit{i % plan.accounts, i + 1}, sink);
  }
  if (absl::Status s = window->AwaitAll(); !s.ok()) return s;
  const double seconds = std::max(clock.Seconds(), 1e-9);
  return static_cast<double>(plan.deposits) / seconds;
}

struct Row {
  double cairn = 0;  // deposits/s
  double raw = 0;    // events/s
  double value_bytes = 0;
};

// cairn's bank takes the deposits; raw RocksDB then writes the events it
// stored.
absl::StatusOr<Row> Measure(const Plan& plan, bool fsync) {
  absl::StatusOr<TempDir> cairn_dir = TempDir::Make("cairn-bench-bank");
  if (!cairn_dir.ok()) return cairn_dir.status();
  absl::StatusOr<TempDir> raw_dir = TempDir::Make("cairn-bench-bank-raw");
  if (!raw_dir.ok()) return raw_dir.status();

  Row row;
  absl::StatusOr<double> cairn = CairnLoad(cairn_dir->path(), plan, fsync);
  if (!cairn.ok()) return cairn.status();
  row.cairn = *cairn;

  // The store is closed: the BankSystem is gone.
  absl::StatusOr<std::vector<TaggedEvent>> events =
      ReadTaggedEvents(cairn_dir->path(), examples::bank::kMovementsTag);
  if (!events.ok()) return events.status();
  if (static_cast<int64_t>(events->size()) != plan.deposits) {
    return absl::DataLossError(
        absl::StrCat("the bank's store holds ", events->size(),
                     " deposits of the ", plan.deposits,
                     " acknowledged: the raw side would not do the same "
                     "work"));
  }
  double value_bytes = 0;
  for (const TaggedEvent& event : *events) value_bytes += event.value.size();
  row.value_bytes = value_bytes / static_cast<double>(events->size());

  absl::StatusOr<double> raw =
      WriteTaggedEvents(raw_dir->path(), *events, kRawBatch, fsync);
  if (!raw.ok()) return raw.status();
  row.raw = *raw;
  return row;
}

void Run(const Plan& plan) {
  std::printf(
      "bank load: %lld accounts, %lld deposits (each acked once persisted) "
      "against raw RocksDB writing the same events in WriteBatches of %lld\n",
      static_cast<long long>(plan.accounts),
      static_cast<long long>(plan.deposits), static_cast<long long>(kRawBatch));
  std::printf("stores under: %s\n", TempDir::Root().c_str());
  std::printf("%-22s %12s %12s %10s %8s %8s\n", "case", "cairn dep/s",
              "raw ev/s", "cairn/raw", "target", "value B");
  for (bool fsync : {false, true}) {
    const std::string name =
        absl::StrCat("bank load, fsync ", fsync ? "on" : "off");
    absl::StatusOr<Row> row = Measure(plan, fsync);
    if (!row.ok()) Die(absl::StrCat(name, ": ", row.status().ToString()));
    std::printf("%-22s %12.0f %12.0f %9.2fx %8s %8.0f\n", name.c_str(),
                row->cairn, row->raw, row->cairn / row->raw,
                absl::StrFormat(">=%.1fx", kTarget).c_str(), row->value_bytes);
  }
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(argc, argv, "bank_load_benchmark [--quick]");
  const bool quick = cairn::bench::Quick();
  cairn::bench::Run(quick ? cairn::bench::kQuickPlan : cairn::bench::kFullPlan);
  return 0;
}
