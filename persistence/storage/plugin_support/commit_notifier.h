#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_COMMIT_NOTIFIER_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_COMMIT_NOTIFIER_H_

#include <cstdint>
#include <map>

#include "absl/functional/any_invocable.h"
#include "base/mutex.h"

namespace cairn::persistence::plugin_support {

// Tells live queries that a journal committed something (Notify), so that
// a query that has delivered everything waits for the next commit rather
// than polling. A waiter reads Generation() before it reads the store and
// passes it to Wait: a commit in between runs it at once, so no commit is
// missed.
//
// Thread safety: any thread. A waiter runs on the thread that calls Notify
// (or inside Wait, when the generation has moved on already), under no
// lock; it must be cheap (post a task). A waiter that Cancel returns is
// not run by the notifier.
class CommitNotifier {
 public:
  using Waiter = absl::AnyInvocable<void() &&>;
  using Ticket = uint64_t;

  // Commits notified so far.
  uint64_t Generation() const;

  // Runs `waiter` once, after the first Notify that follows generation
  // `seen`: now, if that happened already. The ticket cancels it.
  Ticket Wait(uint64_t seen, Waiter waiter);

  // Removes the waiter of `ticket` and returns it (to be run or dropped by
  // the caller); an empty one if it ran or was taken already.
  Waiter Cancel(Ticket ticket);

  // A commit happened: runs every waiter registered before.
  void Notify();

 private:
  mutable base::Mutex mu_;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  Ticket next_ticket_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<Ticket, Waiter> waiters_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence::plugin_support

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_COMMIT_NOTIFIER_H_
