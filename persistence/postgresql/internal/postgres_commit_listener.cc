#include "persistence/postgresql/internal/postgres_commit_listener.h"

#include <algorithm>
#include <utility>

#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"

namespace cairn::persistence::postgres_internal {
namespace {

// Enough failures for any backoff to reach its max, and no more (as the
// listener counts its own).
constexpr int kCountedFailures = 62;

}  // namespace

PgCommitListener::PgCommitListener(
    PgListenerOptions options,
    std::shared_ptr<plugin_support::CommitNotifier> commits)
    : options_(std::move(options)), commits_(std::move(commits)) {}

PgCommitListener::~PgCommitListener() { Stop(); }

void PgCommitListener::Ensure() {
  base::MutexLock lock(&mu_);
  if (stopped_ || listener_ != nullptr || absl::Now() < next_try_) return;
  // The notifier, not this object: the listener's thread may call while
  // Stop waits for it.
  absl::StatusOr<std::unique_ptr<PgListener>> started =
      PgListener::Start(options_, [commits = commits_] { commits->Notify(); });
  if (started.ok()) {
    listener_ = *std::move(started);
    failures_ = 0;
    return;
  }
  // Not kept: the queries read on their refresh interval meanwhile, and
  // whatever the cause, the next attempt will tell again.
  absl::BitGen random;
  next_try_ =
      absl::Now() + PgListenerReconnectDelay(options_.backoff, failures_,
                                             absl::Uniform(random, 0.0, 1.0));
  failures_ = std::min(failures_ + 1, kCountedFailures);
}

void PgCommitListener::Stop() {
  std::unique_ptr<PgListener> listener;
  {
    base::MutexLock lock(&mu_);
    stopped_ = true;
    listener = std::move(listener_);
  }
  // Joins its thread, outside the lock (its calls never take it anyway).
  listener.reset();
}

}  // namespace cairn::persistence::postgres_internal
