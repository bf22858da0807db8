// The typed persistence API (persistence/typed: EventSourcedBehavior,
// Effect::Persist(...).ThenReply(...)) against the classic one
// (PersistentActor: Command<C>, Persist(event, handler), Sender().Tell)
// on the same workload, in the same run. Both sides are an account: a
// Deposit persists one event (persistence_benchmark's 8-byte Event, the
// same serializer), the event adds to the balance, and the balance goes
// back once it is stored. Only the API differs. One row per case: each
// side's events per second (medians) and the ratio typed/classic of each
// run (median, fewest, most; higher is better for typed).
//
//   bazel run -c opt //bench/persistence:typed_vs_classic_benchmark
//   ... -- [--quick] [--runs N] [--filter SUBSTRING]
//
// Rows, all on the RocksDB journal with fsync off (persistence_benchmark's
// fsync-off configuration), on a new store for every run of every side:
//
//   Persist, 1 actor     one account takes every Deposit
//   Persist, 100 actors  the same Deposits spread over 100 accounts
//   recovery, 100 actors x E events
//                        100 accounts recover E events each
//
// Persist rows drive as persistence_benchmark's Persist rows do: the
// accounts start and recover their empty streams (which opens the store),
// the clock starts, the main thread sends every Deposit up front, round
// robin, and the clock stops when every reply has come. The replies go to
// one counting actor on both sides (classic: the Deposit's sender; typed:
// its ReplyTo), so both pay the same extra message per event. Recovery
// rows: the store is filled untimed (CairnWrite, PersistAll of 1000), an
// account with an empty stream opens it, then the clock runs from
// starting the first account to the last one's RecoveryCompleted (typed:
// its signal). Starting a typed account includes building its behaviour,
// as a user's code does per entity.
//
// The sides take turns (classic, typed, classic, typed, ...), --runs times
// each (--quick: once, with small counts). A second table gives what the
// timed part cost per event on every thread: allocations (fewest of the
// runs) and CPU time (median).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/typed_ref.h"
#include "bench/persistence/persistence_benchmark_cairn.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "bench/support/allocation_counter.h"
#include "bench/support/bench_main.h"
#include "bench/support/statistics.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/typed/event_sourced_behavior.h"
#include "persistence/typed/signals.h"
#include "serialization/payload.h"

ABSL_FLAG(int, runs, 5, "runs of each row on each side, in turns (--quick: 1)");
ABSL_FLAG(std::string, filter, "",
          "run only the rows whose name contains this text");

namespace cairn::bench {
namespace {

using actor::ActorRef;
using actor::ReplyTo;
using actor::TypedRef;
using persistence::RecoveryCompleted;
using persistence::testing::TempDir;
using persistence::typed::EventSourcedBehavior;
using persistence::typed::Overloaded;
using persistence::typed::RecoveryFailed;

// Long enough for any machine; a side that never finishes (the typed API
// has no hook for a failed write) fails its row instead of hanging.
constexpr std::chrono::seconds kPatience(300);

constexpr int64_t kAmount = 1;
constexpr int kRecoveryActors = 100;

struct Plan {
  int64_t persist_events;        // per Persist row, over all its accounts
  int64_t recovery_events_each;  // per account of the recovery row
  int fill_batch;                // events per PersistAll of the fill
};

// Full: each side of a row takes about a second or less per run on 2
// cores (persistence_benchmark's 100,000 events per fsync-off Persist
// row; a recovery of 1M events). Quick: a smoke run.
constexpr Plan kFullPlan = {100'000, 10'000, 1'000};
constexpr Plan kQuickPlan = {2'000, 100, 100};

// ---- What both sides share: the event, the state, how one applies.

// The event: persistence_benchmark's, registered by BenchSystem, so that
// both sides (and its rows) store the same bytes through the same
// serializer.
using Deposited = Event;

// The state. `deposits` lets a recovery row check that every event was
// applied, on either side alike.
struct Account {
  int64_t balance = 0;
  int64_t deposits = 0;
};

// The one event handler: the typed side's, and the classic side's
// Recover<Deposited> and persist handler.
Account ApplyDeposit(Account account, const Deposited& event) {
  account.balance += event.value;
  ++account.deposits;
  return account;
}

// What the accounts and the reply counter report to the main thread.
struct Tally {
  explicit Tally(int64_t accounts) : recovered(accounts) {}

  void Recovered(const Account& account) {
    deposits_recovered.fetch_add(account.deposits, std::memory_order_relaxed);
    recovered.CountDown();
  }

  Countdown recovered;
  Countdown replied{1};
  std::atomic<int64_t> deposits_recovered{0};
  std::atomic<int64_t> reply_sum{0};
};

// Takes every reply (a balance) of a Persist row, and counts down once
// `expected` have come, with their sum to check.
class ReplyCounter final : public actor::Actor {
 public:
  ReplyCounter(int64_t expected, Tally* tally) : left_(expected) {
    Receive<int64_t>([this, tally](const int64_t& balance) {
      sum_ += balance;
      if (--left_ > 0) return;
      tally->reply_sum.store(sum_, std::memory_order_relaxed);
      tally->replied.CountDown();
    });
  }

 private:
  int64_t left_;
  int64_t sum_ = 0;
};

// ---- The classic side: a PersistentActor, the reply to Sender().

struct ClassicDeposit {
  int64_t amount = 0;
};
// Not sent: here so that both sides' accounts take the same two commands.
struct ClassicGetBalance {};

class ClassicAccount final : public persistence::PersistentActor {
 public:
  ClassicAccount(std::string id, Tally* tally)
      : id_(std::move(id)), tally_(tally) {
    Recover<Deposited>(
        [this](const Deposited& e) { account_ = ApplyDeposit(account_, e); });
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { tally_->Recovered(account_); });
    Command<ClassicDeposit>([this](const ClassicDeposit& c) {
      Persist(Deposited{c.amount}, [this](const Deposited& e) {
        account_ = ApplyDeposit(account_, e);
        Sender().Tell(account_.balance);
      });
    });
    Command<ClassicGetBalance>(
        [this](const ClassicGetBalance&) { Sender().Tell(account_.balance); });
  }

  std::string PersistenceId() const override { return id_; }

 protected:
  // Fail the row at once rather than at kPatience.
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    tally_->recovered.Fail(cause);
  }
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    tally_->replied.Fail(cause);
  }
  void OnPersistRejected(const absl::Status& cause,
                         const serialization::Payload&, int64_t) override {
    tally_->replied.Fail(cause);
  }

 private:
  const std::string id_;
  Tally* const tally_;
  Account account_;
};

class ClassicAccounts {
 public:
  void Start(actor::ActorSystem& system, std::string id, Tally* tally) {
    refs_.push_back(system.ActorOf(
        actor::Props::Create<ClassicAccount>(std::move(id), tally)));
  }
  // One Deposit to every account, in order.
  void DepositEach(const ActorRef& replies) const {
    for (const ActorRef& ref : refs_)
      ref.Tell(ClassicDeposit{kAmount}, replies);
  }

 private:
  std::vector<ActorRef> refs_;
};

// ---- The typed side: an EventSourcedBehavior, the reply to a ReplyTo.

struct Deposit {
  int64_t amount = 0;
  ReplyTo<int64_t> reply_to;
};
// Not sent, as ClassicGetBalance.
struct GetBalance {
  ReplyTo<int64_t> reply_to;
};
using AccountCommand = std::variant<Deposit, GetBalance>;
using AccountBehavior =
    EventSourcedBehavior<AccountCommand, Deposited, Account>;
using AccountEffect = AccountBehavior::Effect;

AccountBehavior MakeAccount(std::string id, Tally* tally) {
  return AccountBehavior::WithEnforcedReplies(
             std::move(id), Account{},
             Overloaded{[](const Account&, const Deposit& c) {
                          return AccountEffect::Persist(Deposited{c.amount})
                              .ThenReply(c.reply_to, [](const Account& a) {
                                return a.balance;
                              });
                        },
                        [](const Account& a, const GetBalance& c) {
                          return AccountEffect::Reply(c.reply_to, a.balance);
                        }},
             &ApplyDeposit)
      .ReceiveSignal(
          Overloaded{[tally](const Account& a, const RecoveryCompleted&) {
                       tally->Recovered(a);
                     },
                     [tally](const Account&, const RecoveryFailed& f) {
                       tally->recovered.Fail(f.cause);
                     }});
}

class TypedAccounts {
 public:
  void Start(actor::ActorSystem& system, std::string id, Tally* tally) {
    refs_.push_back(
        persistence::typed::Spawn(system, MakeAccount(std::move(id), tally)));
  }
  void DepositEach(const ActorRef& replies) const {
    for (const TypedRef<AccountCommand>& ref : refs_) {
      ref.Tell(Deposit{kAmount, ReplyTo<int64_t>(replies)});
    }
  }

 private:
  std::vector<TypedRef<AccountCommand>> refs_;
};

// ---- One timed run of one side. Accounts: ClassicAccounts or
// TypedAccounts, so that both sides run the very same driver.

struct Sample {
  double rate = 0;  // events per second
  SideCost cost;
};

// `actors` accounts take `each` Deposits each on a new store.
template <typename Accounts>
absl::StatusOr<Sample> TimePersist(int actors, int64_t each) {
  absl::StatusOr<TempDir> dir = TempDir::Make("cairn-bench-typed-vs-classic");
  if (!dir.ok()) return dir.status();
  const int64_t events = actors * each;
  Tally tally(actors);  // outlives the system, which reports to it
  absl::StatusOr<std::unique_ptr<BenchSystem>> bench =
      BenchSystem::Start(dir->path(), /*fsync=*/false);
  if (!bench.ok()) return bench.status();
  actor::ActorSystem& system = (*bench)->system();
  const ActorRef replies =
      system.ActorOf(actor::Props::Create<ReplyCounter>(events, &tally));
  Accounts accounts;
  for (int i = 0; i < actors; ++i) {
    accounts.Start(system, BenchPersistenceId(i), &tally);
  }
  if (absl::Status s = tally.recovered.WaitFor(kPatience); !s.ok()) return s;

  Stopwatch clock;
  for (int64_t c = 0; c < each; ++c) accounts.DepositEach(replies);
  if (absl::Status s = tally.replied.WaitFor(kPatience); !s.ok()) return s;
  const double seconds = clock.Seconds();
  Sample sample;
  sample.rate = static_cast<double>(events) / seconds;
  sample.cost = SideCost::Of(clock, static_cast<double>(events));

  // Each account answered balances kAmount, 2 kAmount, ... each kAmount.
  const int64_t expected = actors * kAmount * each * (each + 1) / 2;
  if (const int64_t sum = tally.reply_sum.load(); sum != expected) {
    return absl::DataLossError(
        absl::StrCat("the replies add up to ", sum, " instead of ", expected));
  }
  return sample;
}

// `actors` accounts recover `each` events each from a new store.
template <typename Accounts>
absl::StatusOr<Sample> TimeRecovery(int actors, int64_t each, int fill_batch) {
  absl::StatusOr<TempDir> dir = TempDir::Make("cairn-bench-typed-vs-classic");
  if (!dir.ok()) return dir.status();
  // Either side's store holds the same records: persistence_benchmark's
  // actors write the Event both sides persist, faster than Deposits would.
  const WriteLoad fill{.mode = PersistMode::kPersistAll,
                       .actors = actors,
                       .events_per_actor = each,
                       .batch = fill_batch,
                       .fsync = false,
                       .tags = {}};
  if (absl::StatusOr<double> s = CairnWrite(dir->path(), fill); !s.ok()) {
    return s.status();
  }

  Tally opener(1);
  Tally tally(actors);
  absl::StatusOr<std::unique_ptr<BenchSystem>> bench =
      BenchSystem::Start(dir->path(), /*fsync=*/false);
  if (!bench.ok()) return bench.status();
  actor::ActorSystem& system = (*bench)->system();
  // Opens the store (RocksDB replays its WAL then) before the clock, as
  // persistence_benchmark's recovery rows do.
  Accounts warm;
  warm.Start(system, "bench-opener", &opener);
  if (absl::Status s = opener.recovered.WaitFor(kPatience); !s.ok()) return s;

  Stopwatch clock;
  Accounts accounts;
  for (int i = 0; i < actors; ++i) {
    accounts.Start(system, BenchPersistenceId(i), &tally);
  }
  if (absl::Status s = tally.recovered.WaitFor(kPatience); !s.ok()) return s;
  const double seconds = clock.Seconds();
  const int64_t events = actors * each;
  Sample sample;
  sample.rate = static_cast<double>(events) / seconds;
  sample.cost = SideCost::Of(clock, static_cast<double>(events));
  if (const int64_t applied = tally.deposits_recovered.load();
      applied != events) {
    return absl::DataLossError(
        absl::StrCat("applied ", applied, " events instead of ", events));
  }
  return sample;
}

// ---- Rows: the sides in turns, and what the runs gave.

enum class Api { kClassic, kTyped };

struct Work {
  bool recovery = false;  // false: a Persist row
  int actors = 1;
  int64_t each = 1;    // events per account
  int fill_batch = 1;  // recovery only
};

template <typename Accounts>
absl::StatusOr<Sample> RunWork(const Work& work) {
  if (work.recovery) {
    return TimeRecovery<Accounts>(work.actors, work.each, work.fill_batch);
  }
  return TimePersist<Accounts>(work.actors, work.each);
}

absl::StatusOr<Sample> RunSide(Api api, const Work& work) {
  return api == Api::kClassic ? RunWork<ClassicAccounts>(work)
                              : RunWork<TypedAccounts>(work);
}

struct Row {
  Spread typed;    // events per second
  Spread classic;  // events per second
  Spread ratio;    // typed/classic of each run
  SideCost typed_cost;
  SideCost classic_cost;
};

absl::StatusOr<Row> RunRow(const Work& work, int runs) {
  std::vector<double> typed, classic, ratios;
  std::vector<double> typed_cpu, classic_cpu, typed_allocs, classic_allocs;
  for (int i = 0; i < runs; ++i) {
    // In turns, so that a drift of the machine (heat, a neighbour) falls
    // on both sides alike; each run's ratio compares neighbours in time.
    absl::StatusOr<Sample> c = RunSide(Api::kClassic, work);
    if (!c.ok()) return c.status();
    absl::StatusOr<Sample> t = RunSide(Api::kTyped, work);
    if (!t.ok()) return t.status();
    typed.push_back(t->rate);
    classic.push_back(c->rate);
    ratios.push_back(t->rate / c->rate);
    typed_cpu.push_back(t->cost.cpu_us);
    classic_cpu.push_back(c->cost.cpu_us);
    typed_allocs.push_back(t->cost.allocations);
    classic_allocs.push_back(c->cost.allocations);
  }
  Row row;
  row.typed = SpreadOf(typed);
  row.classic = SpreadOf(classic);
  row.ratio = SpreadOf(ratios);
  // The fewest allocations: what the work needs, not what a slow run's
  // extra wake-ups added.
  row.typed_cost = {SpreadOf(typed_allocs).min, SpreadOf(typed_cpu).median};
  row.classic_cost = {SpreadOf(classic_allocs).min,
                      SpreadOf(classic_cpu).median};
  return row;
}

struct Case {
  std::string name;
  Work work;
};

std::vector<Case> Cases(const Plan& plan) {
  std::vector<Case> cases;
  for (int actors : {1, 100}) {
    cases.push_back(
        {absl::StrCat("Persist, ", actors, actors == 1 ? " actor" : " actors"),
         Work{.recovery = false,
              .actors = actors,
              .each = plan.persist_events / actors}});
  }
  cases.push_back({absl::StrCat("recovery, ", kRecoveryActors, " actors x ",
                                plan.recovery_events_each, " events"),
                   Work{.recovery = true,
                        .actors = kRecoveryActors,
                        .each = plan.recovery_events_each,
                        .fill_batch = plan.fill_batch}});
  return cases;
}

// The rows' format is persistence_benchmark's ratio table's (a case, two
// rates, then "0.00x "), so that smoke_test.bzl's ratio_row matches them;
// its header names cairn and raw, hence a header of our own.
void PrintHeader(int runs) {
  std::printf("cores: %u\n", std::thread::hardware_concurrency());
  std::printf(
      "typed EventSourcedBehavior against classic PersistentActor: the same "
      "8-byte events, RocksDB journal, fsync off\n");
  std::printf(
      "runs per side: %d, in turns (classic, typed, ...); rates: medians; "
      "ratio typed/classic of each run: median, fewest, most\n",
      runs);
  std::printf("%-40s %12s %12s %7s %7s %7s\n", "case", "typed ev/s",
              "classic ev/s", "ratio", "fewest", "most");
}

void PrintRow(const std::string& name, const Row& row) {
  std::printf("%-40s %12.0f %12.0f %6.2fx %6.2fx %6.2fx\n", name.c_str(),
              row.typed.median, row.classic.median, row.ratio.median,
              row.ratio.min, row.ratio.max);
}

// No "x" after a figure, so that ratio_row skips these lines.
void PrintCosts(const std::vector<std::pair<std::string, Row>>& rows) {
  std::printf(
      "\nallocations and CPU per event (timed part, every thread; "
      "allocations: fewest of the runs%s; CPU: median, microseconds)\n",
      AllocationsCounted() ? "" : ", not counted in this build");
  std::printf("%-40s %12s %12s %10s %10s\n", "case", "typed alloc",
              "classic alloc", "typed us", "classic us");
  for (const auto& [name, row] : rows) {
    std::printf("%-40s %12.1f %12.1f %10.2f %10.2f\n", name.c_str(),
                row.typed_cost.allocations, row.classic_cost.allocations,
                row.typed_cost.cpu_us, row.classic_cost.cpu_us);
  }
}

// Runs every selected row, also after one fails; 1 if any failed.
int Run() {
  const bool quick = Quick();
  const Plan& plan = quick ? kQuickPlan : kFullPlan;
  const int runs = quick ? 1 : std::max(1, absl::GetFlag(FLAGS_runs));
  const std::string filter = absl::GetFlag(FLAGS_filter);
  PrintHeader(runs);
  int exit_code = 0;
  std::vector<std::pair<std::string, Row>> done;
  for (const Case& c : Cases(plan)) {
    if (c.name.find(filter) == std::string::npos) continue;
    absl::StatusOr<Row> row = RunRow(c.work, runs);
    if (row.ok()) {
      PrintRow(c.name, *row);
      done.emplace_back(c.name, *row);
    } else {
      std::printf("%-40s FAILED: %s\n", c.name.c_str(),
                  row.status().ToString().c_str());
      exit_code = 1;
    }
  }
  PrintCosts(done);
  return exit_code;
}

}  // namespace
}  // namespace cairn::bench

int main(int argc, char** argv) {
  cairn::bench::InitBenchmark(
      argc, argv,
      "typed_vs_classic_benchmark [--quick] [--runs N] [--filter SUBSTRING]");
  return cairn::bench::Run();
}
