#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_LISTENER_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_LISTENER_H_

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
  // again: PgListenerReconnectDelay (`min` at first, doubling per failed
  // attempt up to `max`, never under kMinPgListenerReconnectDelay, and up
  // to a fifth more at random).
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

// The least wait before the listener connects again, whatever the backoff
// says (config allows a `reconnect-min-backoff` of 0): a server refusing
// every attempt is not tried in a loop that takes a whole core.
inline constexpr absl::Duration kMinPgListenerReconnectDelay =
    absl::Milliseconds(10);

// The wait before attempting to connect again after `failures` attempts
// failed since the connection was lost (0: the first attempt): `min`
// doubled per failure up to `max`, each of them raised to
// kMinPgListenerReconnectDelay first, then lengthened by `jitter` (in [0,
// 1]) times a fifth (as Akka's BackoffSupervisor's random factor of 0.2
// does): the processes of a cluster whose server restarted do not all
// connect again at the same instant.
absl::Duration PgListenerReconnectDelay(const PgReconnectBackoff& backoff,
                                        int failures, double jitter);

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
// one batch). It may destroy the listener: the destructor then returns at
// once, and the thread ends (closing the connection) when the callback
// returns, without calling again.
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
  // no call starts after it returns. Closes the connection. A wait (for
  // the server, or before connecting again) is interrupted, a round trip
  // in progress is not: besides a callback in progress, it blocks at most
  // the settings' connect_timeout as libpq applies it (whole seconds, at
  // least 2, per address of the host tried) plus twice their call_timeout
  // (connecting again, then a LISTEN with no answer); twice the
  // call_timeout for a check of the connection with no answer. Called by
  // the callback (on the listener's thread), it does not wait: the thread
  // ends when the callback returns.
  ~PgListener();
  PgListener(const PgListener&) = delete;
  PgListener& operator=(const PgListener&) = delete;

 private:
  // What the thread uses, owned with it: a callback that destroys the
  // listener leaves the thread its state until it ends.
  struct State;

  explicit PgListener(std::shared_ptr<State> state);

  // The thread: waits on `connection` and the wake-up descriptor, calls
  // back, connects again when the connection is lost.
  static void Run(std::shared_ptr<State> state,
                  std::unique_ptr<PgConnection> connection);

  const std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_LISTENER_H_
