#ifndef CAIRN_EXAMPLES_BANK_RECOVERY_WAIT_H_
#define CAIRN_EXAMPLES_BANK_RECOVERY_WAIT_H_

// How the command-line programs wait for answers that may need recoveries
// first. Not for a fixed time: a recovery takes as long as its events take
// to replay (an account of 4 million events, half a minute and more), so a
// wait goes on while anything progresses and fails only when nothing has
// for a while, saying which recovery it was waiting for and how far it got.

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "actor/future.h"
#include "examples/bank/recovery_progress.h"

namespace cairn::examples::bank {

struct Patience {
  // A wait fails when nothing has progressed for this long. Longer than
  // the journal's own watch on a recovery (recovery-event-timeout, 30 s,
  // checked every 30 s: a silent journal fails a recovery within 60 s),
  // so that a recovery that hears nothing from its journal fails first,
  // with the journal's reason.
  absl::Duration idle_timeout = absl::Seconds(90);
  // How often a waiting thread looks at the progress (real time).
  absl::Duration poll_interval = absl::Milliseconds(100);
};

// Blocks until `ready(d)`, which waits up to `d` itself, returns true. OK
// then; DeadlineExceeded once nothing in `progress` has moved for
// patience.idle_timeout (by progress.clock(), counted from the later of
// this call and the last progress), with a message that names `subject`
// (e.g. "account 7") and `persistence_id` and says how far its recovery
// got.
[[nodiscard]] absl::Status AwaitWhileProgressing(
    const std::function<bool(absl::Duration)>& ready,
    const RecoveryProgress& progress, const std::string& subject,
    const std::string& persistence_id, const Patience& patience);

template <typename T>
[[nodiscard]] absl::Status AwaitWhileProgressing(
    const actor::Future<T>& future, const RecoveryProgress& progress,
    const std::string& subject, const std::string& persistence_id,
    const Patience& patience) {
  return AwaitWhileProgressing(
      [&future](absl::Duration d) { return future.wait_for(d); }, progress,
      subject, persistence_id, patience);
}

// Whether nothing has moved in `progress` for `idle_timeout` by its clock,
// counting from `since` at the earliest.
bool Stalled(const RecoveryProgress& progress, absl::Time since,
             absl::Duration idle_timeout);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_RECOVERY_WAIT_H_
