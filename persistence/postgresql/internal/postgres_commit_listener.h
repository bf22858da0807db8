#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_COMMIT_LISTENER_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_COMMIT_LISTENER_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "persistence/postgresql/internal/postgres_listener.h"
#include "persistence/storage/plugin_support/commit_notifier.h"

namespace cairn::persistence::postgres_internal {

// The topic of the channel (PgChannelName) on which the journal announces
// each committed write transaction of a schema, with pg_notify in that
// transaction, so that a notification means a committed write.
inline constexpr char kPgEventsTopic[] = "events";

// The channel of the journal's writes in `schema`.
inline std::string PgEventsChannel(std::string_view schema) {
  return PgChannelName(schema, kPgEventsTopic);
}

// Tells a CommitNotifier of the commits of every process writing to a
// schema: a PgListener on the schema's events channel, started on demand
// (Ensure, before a live query reads), whose every call (a batch of
// notifications, or a reconnection after which some may have been
// missed) is a Notify, so the live queries waiting on the notifier read
// again at once.
//
// A failed start (the server down, LISTEN refused) is not an error of the
// queries: they still read every refresh interval, and a later Ensure
// tries again, not sooner than the listener's own reconnection delay
// (PgListenerReconnectDelay, growing with each failure).
//
// Thread safety: any thread. Ensure may block for a start (as long as
// PgListener::Start: connecting, then LISTEN), and so may other threads'
// Ensure and Stop meanwhile (they wait for that attempt: a query that reads
// after Ensure returned hears every commit after its read, or reads it).
class PgCommitListener {
 public:
  // `options.connect` is called for each start; `commits` is told of each
  // call of the listener. Nothing connects before Ensure.
  PgCommitListener(PgListenerOptions options,
                   std::shared_ptr<plugin_support::CommitNotifier> commits);
  // Stop.
  ~PgCommitListener();
  PgCommitListener(const PgCommitListener&) = delete;
  PgCommitListener& operator=(const PgCommitListener&) = delete;

  // Starts listening unless it listens already, it was stopped, or the
  // last start failed less than its delay ago. When it returns listening,
  // every commit announced after that (and before Stop) reaches the
  // notifier.
  void Ensure();

  // Stops listening (waiting for the listener's thread) for good: Ensure
  // does nothing after. Waits for a start in progress.
  void Stop();

 private:
  const PgListenerOptions options_;
  const std::shared_ptr<plugin_support::CommitNotifier> commits_;
  // Held through a start: the connection attempt is made once for all
  // the threads that want it.
  base::Mutex mu_;
  std::unique_ptr<PgListener> listener_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  // Starts that failed in a row, and when the next may be tried.
  int failures_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time next_try_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_COMMIT_LISTENER_H_
