#include "examples/bank/client.h"

#include <algorithm>
#include <atomic>
#include <optional>

#include "base/mutex.h"

namespace cairn::examples::bank {
namespace {

// Balance requests in flight at once.
constexpr size_t kWindow = 256;
// Ids read per Pull of the persistence ids query.
constexpr size_t kIdsPerPull = 1000;

// An Ask failed rather than answered (the actor system is terminating).
absl::Status AskFailed(const std::exception& e) {
  return absl::UnavailableError(e.what());
}

}  // namespace

BankClient::BankClient(actor::ActorRef accounts,
                       std::shared_ptr<RecoveryProgress> progress,
                       persistence::Journal* journal,
                       persistence::ReadJournal* queries, Patience patience)
    : accounts_(std::move(accounts)),
      progress_(std::move(progress)),
      journal_(journal),
      queries_(queries),
      patience_(patience) {}

absl::StatusOr<AccountReply> BankClient::Await(
    const actor::Future<AccountReply>& reply, int64_t account) const {
  if (absl::Status s = AwaitWhileProgressing(
          reply, *progress_, absl::StrCat("account ", account),
          AccountPersistenceId(account), patience_);
      !s.ok()) {
    return s;
  }
  progress_->MarkProgress();  // an answer is progress too
  try {
    return reply.get();
  } catch (const std::exception& e) {
    return AskFailed(e);
  }
}

absl::StatusOr<std::vector<int64_t>> BankClient::ListAccounts() const {
  using Batch = persistence::QueryStream<std::string>::Batch;
  std::unique_ptr<persistence::QueryStream<std::string>> ids =
      queries_->CurrentPersistenceIds();
  std::vector<int64_t> accounts;
  for (bool complete = false; !complete;) {
    // Shared with the callback: a Pull may answer after this gave up.
    actor::Promise<absl::StatusOr<Batch>> pulled;
    ids->Pull(kIdsPerPull, [pulled](absl::StatusOr<Batch> batch) mutable {
      pulled.TrySetValue(std::move(batch));
    });
    const actor::Future<absl::StatusOr<Batch>> batch = pulled.GetFuture();
    const absl::Time start = progress_->clock().Now();
    while (!batch.wait_for(patience_.poll_interval)) {
      if (Stalled(*progress_, start, patience_.idle_timeout)) {
        return absl::DeadlineExceededError(absl::StrCat(
            "the journal did not list its persistence ids: no answer for ",
            absl::FormatDuration(patience_.idle_timeout)));
      }
    }
    absl::StatusOr<Batch> got = batch.get();
    if (!got.ok()) return got.status();
    for (const std::string& id : got->elements) {
      if (std::optional<int64_t> account = AccountOfPersistenceId(id)) {
        accounts.push_back(*account);
      }
    }
    complete = got->complete;
  }
  std::sort(accounts.begin(), accounts.end());
  return accounts;
}

absl::StatusOr<int64_t> BankClient::ExpectEvents(
    const std::vector<int64_t>& accounts) const {
  if (journal_ == nullptr || accounts.empty()) return 0;
  // Every read at once: they are point lookups, answered on the journal's
  // thread; the last one completes `all`.
  struct Reads {
    std::atomic<size_t> left;
    std::atomic<int64_t> sum{0};
    base::Mutex mu;
    absl::Status first_error ABSL_GUARDED_BY(mu);
    actor::Promise<void> all;
  };
  auto reads = std::make_shared<Reads>();
  reads->left.store(accounts.size());
  for (int64_t account : accounts) {
    RecoveryProgress::Stream* stream =
        &progress_->StreamOf(AccountPersistenceId(account));
    // Holds the progress: a read may answer after this call gave up.
    journal_->AsyncReadHighestSequenceNr(
        AccountPersistenceId(account), 0,
        [reads, stream, progress = progress_](absl::StatusOr<int64_t> highest) {
          if (highest.ok()) {
            stream->SetExpected(*highest);
            reads->sum.fetch_add(*highest);
          } else {
            base::MutexLock lock(&reads->mu);
            if (reads->first_error.ok()) reads->first_error = highest.status();
          }
          if (reads->left.fetch_sub(1) == 1) reads->all.TrySetValue();
        });
  }
  const actor::Future<void> all = reads->all.GetFuture();
  const absl::Time start = progress_->clock().Now();
  while (!all.wait_for(patience_.poll_interval)) {
    if (Stalled(*progress_, start, patience_.idle_timeout)) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the journal did not say how many events ", reads->left.load(),
          " of ", accounts.size(), " accounts have: no answer for ",
          absl::FormatDuration(patience_.idle_timeout)));
    }
  }
  base::MutexLock lock(&reads->mu);
  if (!reads->first_error.ok()) return reads->first_error;
  return reads->sum.load();
}

absl::StatusOr<std::vector<AccountReply>> BankClient::OpenBalances(
    const std::vector<int64_t>& accounts) const {
  std::vector<AccountReply> balances;
  balances.reserve(accounts.size());
  absl::Status status = CallEach<GetBalance>(
      accounts, kWindow, [](int64_t account) { return GetBalance{account}; },
      [&balances](const AccountReply& r) {
        if (r.outcome == AccountReply::Outcome::kFailed) {
          return absl::UnavailableError(
              absl::StrCat("account ", r.account, ": ", r.reason));
        }
        // Refused: never opened.
        if (r.outcome == AccountReply::Outcome::kDone && r.open) {
          balances.push_back(r);
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return balances;
}

}  // namespace cairn::examples::bank
