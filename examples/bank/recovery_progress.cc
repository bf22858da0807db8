#include "examples/bank/recovery_progress.h"

#include <utility>

namespace cairn::examples::bank {

void RecoveryProgress::Stream::Restart() {
  finished_.store(false);
  if (failed_.exchange(false)) {
    base::MutexLock lock(&owner_->mu_);
    owner_->failures_.erase(this);
  }
  owner_->total_.fetch_sub(sequence_nr_.exchange(0));
  owner_->MarkProgress();
}

void RecoveryProgress::Stream::Reached(int64_t sequence_nr) {
  owner_->total_.fetch_add(sequence_nr - sequence_nr_.exchange(sequence_nr));
  owner_->MarkProgress();
}

void RecoveryProgress::Stream::Finished() {
  finished_.store(true);
  owner_->MarkProgress();
}

void RecoveryProgress::Stream::Fail(std::string reason,
                                    actor::ActorRef incarnation) {
  {
    // failed_ under the lock too: a Restart that comes after it erases.
    base::MutexLock lock(&owner_->mu_);
    owner_->failures_[this] = {std::move(incarnation), std::move(reason)};
    failed_.store(true);
  }
  owner_->MarkProgress();
}

void RecoveryProgress::Stream::SetExpected(int64_t highest) {
  expected_.store(highest);
  owner_->MarkProgress();
}

RecoveryProgress::RecoveryProgress(const actor::Clock* clock)
    : clock_(clock), last_progress_nanos_(absl::ToUnixNanos(clock->Now())) {}

RecoveryProgress::Stream& RecoveryProgress::StreamOf(
    const std::string& persistence_id) {
  base::MutexLock lock(&mu_);
  return streams_.try_emplace(persistence_id, this).first->second;
}

const RecoveryProgress::Stream* RecoveryProgress::Find(
    const std::string& persistence_id) const {
  base::MutexLock lock(&mu_);
  auto it = streams_.find(persistence_id);
  return it == streams_.end() ? nullptr : &it->second;
}

std::optional<std::string> RecoveryProgress::FailureOf(
    const std::string& persistence_id,
    const actor::ActorRef& incarnation) const {
  base::MutexLock lock(&mu_);
  auto stream = streams_.find(persistence_id);
  if (stream == streams_.end()) return std::nullopt;
  auto failure = failures_.find(&stream->second);
  if (failure == failures_.end() ||
      failure->second.incarnation != incarnation) {
    return std::nullopt;
  }
  return failure->second.reason;
}

void RecoveryProgress::MarkProgress() {
  // Never backwards, when reports from two threads cross.
  const int64_t now = absl::ToUnixNanos(clock_->Now());
  int64_t seen = last_progress_nanos_.load();
  while (seen < now && !last_progress_nanos_.compare_exchange_weak(seen, now)) {
  }
}

absl::Time RecoveryProgress::last_progress() const {
  return absl::FromUnixNanos(last_progress_nanos_.load());
}

std::function<int64_t()> RecoveredSince(const RecoveryProgress& progress) {
  return [&progress, start = progress.total()] {
    return progress.total() - start;
  };
}

}  // namespace cairn::examples::bank
