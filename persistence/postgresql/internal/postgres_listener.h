#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_LISTENER_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_LISTENER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"

namespace cairn::persistence::postgres_internal {

// The longest channel name PostgreSQL takes (an identifier: NAMEDATALEN - 1
// bytes; pg_notify refuses a longer one, LISTEN would cut it).
inline constexpr size_t kMaxPgChannelBytes = 63;

// The channel of `topic` (a short lowercase word: "members") in `schema`,
// so that the components of two schemas in one database do not hear each
// other: "<schema>.<topic>", or, when that is longer than
// kMaxPgChannelBytes, its first bytes, '#' and 16 hex digits of a hash of
// all of it (FNV-1a, the same in every process and build). Two long names
// may then share a channel (a hash collision), which costs their
// listeners a needless call now and then, never a missed one.
std::string PgChannelName(std::string_view schema, std::string_view topic);

struct PgListenerOptions {
  // How to connect: the listener has a connection of its own, outside any
  // pool, for as long as it lives. Its call timeout bounds LISTEN and the
  // checks below; its application_name is what pg_stat_activity shows.
  PgConnectionSettings settings;
  // The channel to LISTEN on: 1 to kMaxPgChannelBytes bytes, no NUL (it
  // is quoted, so any other character is taken as it is).
  std::string channel;
  // After the connection is lost, the wait before each attempt to connect
  // again: `min` at first, doubling per failed attempt up to `max`.
  PgReconnectBackoff backoff;
  // How long the connection may stay silent before a round trip checks
  // it: a server or network gone without closing the connection (no
  // reset) is noticed within this and twice the call timeout.
  absl::Duration check_interval = absl::Seconds(10);
  // How each connection is made (from `settings`): PgConnection::Connect,
  // or a test's wrapper of it, which may refuse some attempts. Called on
  // Start's caller for the first, on the listener's thread after.
  using Connect = std::function<absl::StatusOr<std::unique_ptr<PgConnection>>(
      const PgConnectionSettings&)>;
  Connect connect = PgConnection::Connect;
};

// LISTENs on one channel and calls back when something is announced on it
// (NOTIFY, pg_notify) by any session of the database: a change committed
// elsewhere, for whoever keeps a view of it to read again. The payloads
// are not delivered: a call says "something changed", once per batch of
// notifications read together, so a burst of commits costs one call.
//
// If the connection breaks (the server restarted, the backend was
// terminated, the network failed), the listener connects again (waiting
// as PgListenerOptions::backoff says, for as long as it takes), LISTENs
// again, and then calls once: notifications sent meanwhile are lost, and
// the call says that anything may have changed.
//
// The callback runs on the listener's own thread, never concurrently with
// itself, and may block it (notifications wait meanwhile, then come as
// one batch); it must not destroy the listener.
//
// Thread safety: Start and the destructor may be called from any thread.
class PgListener {
 public:
  // Connects and runs LISTEN before it returns, so a notification committed
  // after Start returned is heard; then listens on a thread of its own
  // until destroyed. InvalidArgument for a bad channel, an empty callback
  // or no `connect`; the connection's errors (Unavailable when the server
  // cannot be reached); Internal if no thread or wake-up descriptor can be
  // made.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PgListener>> Start(
      PgListenerOptions options, std::function<void()> notified);

  // Stops the thread and waits for it, and so for a callback in progress;
  // no call starts after it returns. Closes the connection.
  ~PgListener();
  PgListener(const PgListener&) = delete;
  PgListener& operator=(const PgListener&) = delete;

 private:
  PgListener(PgListenerOptions options, std::function<void()> notified,
             int wake_fd);

  // The thread: waits on `connection` and the wake-up descriptor, calls
  // back, connects again when the connection is lost.
  void Run(std::unique_ptr<PgConnection> connection);
  // Sleeps for `delay` unless woken for the end first: whether woken.
  bool SleepUnlessStopped(absl::Duration delay);

  const PgListenerOptions options_;
  const std::function<void()> notified_;
  // An eventfd: written by the destructor to wake the thread from poll.
  const int wake_fd_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_LISTENER_H_
