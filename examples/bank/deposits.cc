// `bank deposits`: a client in the cluster that makes deposits at least
// once. It joins as a proxy member (it hosts no account), opens the
// accounts, then hands the deposits to a Depositor (depositor.h), which
// persists each one in the journal before sending it and sends it again
// until its account answers; the accounts count each deposit once
// (account.h). Its output is one line per answered deposit.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/any_message.h"
#include "actor/ask.h"
#include "actor/future.h"
#include "actor/props.h"
#include "base/mutex.h"
#include "examples/bank/bank_system.h"
#include "examples/bank/commands.h"
#include "examples/bank/depositor.h"
#include "examples/bank/line_writer.h"
#include "examples/bank/protocol.h"
#include "sharding/entity_region.h"

namespace cairn::examples::bank {
namespace {

using Outcome = AccountReply::Outcome;

// Each try to open an account waits this long for its answer.
constexpr absl::Duration kOpenTimeout = absl::Seconds(10);
// Between tries: a shard whose lease is still held by a member that died
// is free once it runs out, and then taken by another member.
constexpr absl::Duration kOpenRetryPause = absl::Milliseconds(500);
// Opening gives up when no account could be opened for this long.
constexpr absl::Duration kOpenPatience = absl::Minutes(5);

// Opens accounts 0 to n-1 (an account open already is fine), trying those
// not answered again until every one is. The last reason, naming the
// account, if one could not be opened within kOpenPatience.
absl::Status OpenAccounts(const actor::ActorRef& accounts, int64_t n) {
  std::map<int64_t, std::string> left;  // account -> why not yet
  for (int64_t a = 0; a < n; ++a) left[a] = "not tried";
  absl::Time progress = absl::Now();
  while (!left.empty()) {
    std::vector<std::pair<int64_t, actor::Future<actor::AnyMessage>>> asks;
    for (const auto& [account, reason] : left) {
      asks.emplace_back(
          account, actor::Ask<actor::AnyMessage>(accounts, OpenAccount{account},
                                                 kOpenTimeout));
    }
    for (auto& [account, reply] : asks) {
      std::string reason;
      try {
        const actor::AnyMessage message = reply.get();
        if (const AccountReply* r = message.As<AccountReply>()) {
          // Refused: open already (the numbers are not negative).
          if (r->outcome != Outcome::kFailed) {
            left.erase(account);
            progress = absl::Now();
            continue;
          }
          reason = r->reason;
        } else if (const auto* u = message.As<sharding::ShardUnavailable>()) {
          reason = absl::StrCat("shard ", u->shard_id, ": ", u->reason);
        } else {
          reason = "an answer of another kind";
        }
      } catch (const std::exception& e) {
        reason = e.what();
      }
      left[account] = std::move(reason);
    }
    if (left.empty()) break;
    if (absl::Now() - progress > kOpenPatience) {
      return absl::UnavailableError(absl::StrCat(
          "account ", left.begin()->first, " could not be opened within ",
          absl::FormatDuration(kOpenPatience), ": ",
          OneLine(left.begin()->second)));
    }
    absl::SleepFor(kOpenRetryPause);
  }
  return absl::OkStatus();
}

// What the Depositor and the system tell the program's thread.
struct Outcomes {
  base::Mutex mu;
  base::CondVar changed;
  bool finished ABSL_GUARDED_BY(mu) = false;
  bool terminated ABSL_GUARDED_BY(mu) = false;
  int64_t before ABSL_GUARDED_BY(mu) = 0;
  int64_t confirmed ABSL_GUARDED_BY(mu) = 0;
  int64_t refused ABSL_GUARDED_BY(mu) = 0;
};

}  // namespace

absl::Status RunDeposits(const StoreLocation& store,
                         const DepositsOptions& options) {
  // Made before the actor system, so that they outlive every callback.
  auto out = std::make_shared<BatchedLineWriter>(STDOUT_FILENO, 1000,
                                                 absl::Milliseconds(5));
  auto outcomes = std::make_shared<Outcomes>();
  StoreOptions store_options{store.data.path,
                             /*fsync=*/true,
                             /*create_if_missing=*/true,
                             /*read_only=*/false,
                             store.postgres_url,
                             store.schema};
  store_options.cluster =
      ClusterOptions{options.listen_host, options.listen_port,
                     options.member_ttl, /*proxy=*/true};
  store_options.redeliver_interval = options.redeliver_interval;
  absl::StatusOr<std::unique_ptr<BankSystem>> system =
      BankSystem::Start(store_options);
  if (!system.ok()) return system.status();
  std::fprintf(stderr, "bank deposits: a cluster member (proxy) at %s\n",
               (*system)->address().c_str());
  (*system)->system().WhenTerminated().OnComplete(
      [outcomes](const actor::Future<void>&) {
        {
          base::MutexLock lock(&outcomes->mu);
          outcomes->terminated = true;
        }
        outcomes->changed.SignalAll();
      });
  const actor::ActorRef accounts = (*system)->accounts();
  if (absl::Status s = OpenAccounts(accounts, options.accounts); !s.ok()) {
    return s;
  }

  DepositorListener listener;
  listener.answered = [out, outcomes](int64_t id, const AccountReply& r) {
    const bool done = r.outcome == Outcome::kDone;
    out->Add(done ? absl::StrCat("confirmed ", id, " ", r.account, " ",
                                 r.amount, " ", r.balance)
                  : absl::StrCat("refused ", id, " ", r.account, " ", r.amount,
                                 " ", OneLine(r.reason)));
    base::MutexLock lock(&outcomes->mu);
    ++(done ? outcomes->confirmed : outcomes->refused);
  };
  listener.finished = [outcomes](int64_t before) {
    {
      base::MutexLock lock(&outcomes->mu);
      outcomes->finished = true;
      outcomes->before = before;
    }
    outcomes->changed.SignalAll();
  };
  // Said once: the warning comes at every redelivery past the fifth.
  auto warned = std::make_shared<std::atomic<bool>>(false);
  listener.waiting = [warned](int64_t unconfirmed) {
    if (warned->exchange(true)) return;
    std::fprintf(stderr,
                 "bank deposits: %lld deposits sent 5 times without an "
                 "answer (are the accounts' processes running?); still "
                 "sending\n",
                 static_cast<long long>(unconfirmed));
  };
  actor::ActorRef depositor = (*system)->system().ActorOf(
      actor::Props::Create<Depositor>(options.name, accounts,
                                      std::move(listener)),
      "depositor");
  depositor.Tell(StartDeposits{options.accounts, options.ops});

  base::MutexLock lock(&outcomes->mu);
  while (!outcomes->finished && !outcomes->terminated) {
    outcomes->changed.Wait(&outcomes->mu);
  }
  out->Flush();
  if (!outcomes->finished) {
    return absl::UnavailableError(
        "this process was removed from the cluster (paused, or cut off from "
        "the database, for longer than the member ttl) and has stopped; run "
        "it again with the same --name to go on");
  }
  std::fprintf(stderr,
               "bank deposits: %lld deposits confirmed, %lld refused in this "
               "run; %lld answered in earlier runs\n",
               static_cast<long long>(outcomes->confirmed),
               static_cast<long long>(outcomes->refused),
               static_cast<long long>(outcomes->before));
  if (outcomes->refused > 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(outcomes->refused, " deposits refused (on stdout)"));
  }
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank
