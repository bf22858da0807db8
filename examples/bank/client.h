#ifndef CAIRN_EXAMPLES_BANK_CLIENT_H_
#define CAIRN_EXAMPLES_BANK_CLIENT_H_

// Blocking calls to the bank's accounts, for the command-line programs' main
// thread (never from inside an actor: they wait).

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/ask.h"
#include "actor/future.h"
#include "examples/bank/account.h"
#include "examples/bank/protocol.h"
#include "examples/bank/recovery_progress.h"
#include "examples/bank/recovery_wait.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/read_journal.h"

namespace cairn::examples::bank {

// The deadline of each Ask, which actor::Ask requires. Only a backstop:
// a call ends by its answer, or when recoveries stop making progress
// (Patience), long before this.
inline constexpr absl::Duration kAskBackstop = absl::Hours(24);

// Calls to the accounts' region of one bank (account_region.h). An
// account's first command waits for its recovery, however long that takes
// while it progresses; a call fails
// (DeadlineExceeded) only once no recovery has progressed for
// patience.idle_timeout, naming the account it waited for and how far its
// recovery got.
//
// Thread safety: const methods from any thread, each blocking the caller.
class BankClient {
 public:
  // `progress` must be the one the region was made with. `journal` is the
  // accounts' journal, read only to tell how many events recoveries will
  // replay (ExpectEvents); it may be null. `queries` is its read journal,
  // which lists the accounts (ListAccounts). Both must outlive the client.
  BankClient(actor::ActorRef accounts,
             std::shared_ptr<RecoveryProgress> progress,
             persistence::Journal* journal, persistence::ReadJournal* queries,
             Patience patience = Patience());

  // Sends an account command and waits for its AccountReply (refusals and
  // failures included).
  template <typename C>
  absl::StatusOr<AccountReply> Call(const C& command) const {
    actor::Future<AccountReply> reply =
        actor::Ask<AccountReply>(accounts_, command, kAskBackstop);
    return Await(reply, command.account);
  }

  // Sends make(account) for each of `accounts`, at most `window` at a
  // time, and gives each AccountReply to `on_reply`, in the order of
  // `accounts`. Stops at the first error, of a call or of on_reply.
  template <typename C>
  absl::Status CallEach(
      const std::vector<int64_t>& accounts, size_t window,
      const std::function<C(int64_t)>& make,
      const std::function<absl::Status(const AccountReply&)>& on_reply) const {
    std::deque<std::pair<int64_t, actor::Future<AccountReply>>> in_flight;
    size_t next = 0;
    while (next < accounts.size() || !in_flight.empty()) {
      while (next < accounts.size() && in_flight.size() < window) {
        const int64_t account = accounts[next++];
        in_flight.emplace_back(
            account,
            actor::Ask<AccountReply>(accounts_, make(account), kAskBackstop));
      }
      absl::StatusOr<AccountReply> reply =
          Await(in_flight.front().second, in_flight.front().first);
      in_flight.pop_front();
      if (!reply.ok()) return reply.status();
      if (absl::Status s = on_reply(*reply); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // The accounts with events in the store, ascending: the persistence ids
  // "account-<N>" of the read journal's CurrentPersistenceIds (other ids
  // are left out: the "bank" registry stream of stores written before the
  // accounts' region, for one). An account never opened has no events and
  // is not listed. DeadlineExceeded if the journal did not answer for
  // patience.idle_timeout; the query's error if it fails.
  absl::StatusOr<std::vector<int64_t>> ListAccounts() const;

  // Reads from the journal where the recovery of each of `accounts` will
  // end (RecoveryProgress::Stream::SetExpected) and returns the sum: the
  // total a progress bar of their recoveries counts to. 0 without a
  // journal.
  absl::StatusOr<int64_t> ExpectEvents(
      const std::vector<int64_t>& accounts) const;

  // GetBalance of each of `accounts` that is open, in the order given,
  // recovering each (a bounded number at a time, so a large bank does not
  // queue thousands of recoveries behind the recovery permits). An account
  // never opened ("there is no account N") is left out. Unavailable with
  // the reason of the first account that cannot recover (it names the
  // persistence id and the sequence number of the bad event).
  absl::StatusOr<std::vector<AccountReply>> OpenBalances(
      const std::vector<int64_t>& accounts) const;

  const RecoveryProgress& progress() const { return *progress_; }

 private:
  absl::StatusOr<AccountReply> Await(const actor::Future<AccountReply>& reply,
                                     int64_t account) const;

  const actor::ActorRef accounts_;
  const std::shared_ptr<RecoveryProgress> progress_;
  persistence::Journal* const journal_;
  persistence::ReadJournal* const queries_;
  const Patience patience_;
};

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_CLIENT_H_
