#include "examples/bank/recovery_wait.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace cairn::examples::bank {
namespace {

// Where the recovery of `persistence_id` stands, for the error.
std::string HowFar(const RecoveryProgress& progress,
                   const std::string& persistence_id) {
  const RecoveryProgress::Stream* stream = progress.Find(persistence_id);
  if (stream == nullptr ||
      (stream->sequence_nr() == 0 && !stream->finished())) {
    return "nothing of it recovered yet";
  }
  const std::string of =
      stream->expected() > 0 ? absl::StrCat(" of ", stream->expected()) : "";
  if (stream->finished()) {
    return absl::StrCat("recovered to event ", stream->sequence_nr(), of,
                        ", but no answer came");
  }
  return absl::StrCat("stuck at event ", stream->sequence_nr(), of);
}

}  // namespace

bool Stalled(const RecoveryProgress& progress, absl::Time since,
             absl::Duration idle_timeout) {
  const absl::Time last = std::max(since, progress.last_progress());
  return progress.clock().Now() - last >= idle_timeout;
}

absl::Status AwaitWhileProgressing(
    const std::function<bool(absl::Duration)>& ready,
    const RecoveryProgress& progress, const std::string& subject,
    const std::string& persistence_id, const Patience& patience) {
  const absl::Time start = progress.clock().Now();
  while (!ready(patience.poll_interval)) {
    if (Stalled(progress, start, patience.idle_timeout)) {
      return absl::DeadlineExceededError(absl::StrCat(
          subject, " (persistence id ", persistence_id,
          "): waited for its recovery, but no recovery made progress for ",
          absl::FormatDuration(patience.idle_timeout), " (",
          HowFar(progress, persistence_id), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank
