#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_CONNECTION_POOL_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_CONNECTION_POOL_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "persistence/postgresql/internal/postgres_connection.h"

namespace cairn::persistence::postgres_internal {

// How long a pool waits before it tries to connect again after a failed
// attempt: `min`, doubling per failure up to `max`; a success resets it.
struct PgReconnectBackoff {
  absl::Duration min = absl::Milliseconds(100);
  absl::Duration max = absl::Seconds(10);
};

// Connections to one server, made when needed and reused. A connection
// given back broken (lost, timed out) is dropped, with every idle one: a
// lost connection usually means the server restarted or the network
// broke, and they would fail the same way. New ones are made as needed. After a
// failed connection attempt no other is made until the backoff has passed:
// Acquire fails at once meanwhile, with the last attempt's error, so a server
// that is down costs callers no waiting and is not hammered (the callers' own
// retries, e.g. a BackoffSupervisor's, see the failures).
//
// Thread safety: every method may be called from any thread; connecting
// happens outside the lock. The pool must outlive the connections it lent.
class PgConnectionPool {
 public:
  // Runs on every new connection before it is lent (e.g. to prepare
  // statements); its failure fails that Acquire.
  using Setup = std::function<absl::Status(PgConnection&)>;
  using Now = std::function<absl::Time()>;

  PgConnectionPool(PgConnectionSettings settings, Setup setup,
                   PgReconnectBackoff backoff, Now now = absl::Now);

  // A connection for the caller alone until it is given back; Unavailable
  // (naming when the next attempt may be made) during a backoff.
  [[nodiscard]] absl::StatusOr<std::unique_ptr<PgConnection>> Acquire();
  void Release(std::unique_ptr<PgConnection> connection);

  // Runs `call` on a connection of the pool and gives it back. If the call
  // fails because its connection was lost (it is broken()) and
  // `may_repeat()` says the call may run again (a read that delivered
  // nothing yet, an idempotent statement), it runs once more on a new
  // connection: after a server restart each pooled connection is dead, and
  // the first use of each would fail otherwise. Acquire's error if no
  // connection can be had.
  [[nodiscard]] absl::Status Run(
      absl::FunctionRef<absl::Status(PgConnection&)> call,
      absl::FunctionRef<bool()> may_repeat);

 private:
  const PgConnectionSettings settings_;
  const Setup setup_;
  const PgReconnectBackoff backoff_;
  const Now now_;

  base::Mutex mu_;
  std::vector<std::unique_ptr<PgConnection>> idle_ ABSL_GUARDED_BY(mu_);
  absl::Duration delay_ ABSL_GUARDED_BY(mu_) = absl::ZeroDuration();
  absl::Time next_attempt_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Status last_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_CONNECTION_POOL_H_
