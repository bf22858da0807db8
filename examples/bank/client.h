#ifndef CAIRN_EXAMPLES_BANK_CLIENT_H_
#define CAIRN_EXAMPLES_BANK_CLIENT_H_

// Blocking calls to the Bank, for the command-line programs' main thread
// (never from inside an actor: they wait).

#include <exception>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/ask.h"
#include "examples/bank/protocol.h"

namespace cairn::examples::bank {

// How long a call waits for its answer. An account's first command also
// waits for its recovery, which fails on its own after the journal's
// recovery-event-timeout (30 s) of silence: this is longer.
inline constexpr absl::Duration kCallTimeout = absl::Seconds(60);

// Sends an account command and waits for its AccountReply (refusals and
// failures included). DeadlineExceeded if none came.
template <typename C>
absl::StatusOr<AccountReply> Call(const actor::ActorRef& bank, C command,
                                  absl::Duration timeout = kCallTimeout) {
  try {
    return actor::Ask<AccountReply>(bank, std::move(command), timeout).get();
  } catch (const std::exception& e) {
    return absl::DeadlineExceededError(e.what());
  }
}

// The registered account numbers, ascending.
absl::StatusOr<std::vector<int64_t>> ListAllAccounts(
    const actor::ActorRef& bank, absl::Duration timeout = kCallTimeout);

// GetBalance of every registered account, ascending by account number,
// recovering each (a bounded number at a time, so a large bank does not
// queue thousands of recoveries behind the recovery permits). Unavailable
// with the reason of the first account that cannot recover (the reason
// names its persistence id and the sequence number of the bad event).
absl::StatusOr<std::vector<AccountReply>> GetAllBalances(
    const actor::ActorRef& bank, absl::Duration timeout = kCallTimeout);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_CLIENT_H_
