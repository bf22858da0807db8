#ifndef CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_OPTIONS_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_OPTIONS_H_

#include <string>

#include "absl/time/time.h"

namespace cairn::persistence {

// Settings of the PostgreSQL journal and snapshot store plugins, which
// share them. Each field names its config key under
// `akka.persistence.journal.postgresql` (docs/POSTGRESQL.md).
struct PostgresOptions {
  // `connection-string`: libpq's, a URI (postgresql://user@host:5432/db)
  // or key=value pairs. Required.
  std::string connection_string;
  // `password-env`: the name of an environment variable holding the
  // password; `password-file`: a file holding it (its first line). Either
  // overrides a password in the connection string; neither is ever
  // printed.
  std::string password_env;
  std::string password_file;
  // `schema`: where cairn's tables are (made on first use), a lowercase
  // identifier. Processes sharing a journal use the same schema.
  std::string schema = "public";
  // `reader-connections`: connections (and threads) for replays and
  // sequence-number reads, at least 1. The writer has one more of its own,
  // and the snapshot store one.
  int reader_connections = 4;
  // `connect-timeout`: the longest a connection attempt may take.
  absl::Duration connect_timeout = absl::Seconds(5);
  // `call-timeout`: the longest one statement may run (PostgreSQL's
  // statement_timeout): the server cancels it then, so it has no effect,
  // and the call fails with DeadlineExceeded. A server or network that
  // does not answer at all fails a call after twice this, and its
  // connection is closed.
  absl::Duration call_timeout = absl::Seconds(10);
  // `reconnect-min-backoff`, `reconnect-max-backoff`: after a failed
  // connection attempt, calls fail at once (Unavailable) until the next
  // attempt, min after the first failure, doubling up to max.
  absl::Duration reconnect_min_backoff = absl::Milliseconds(100);
  absl::Duration reconnect_max_backoff = absl::Seconds(10);
  // `refresh-interval`: how long a live query (EventsByTag,
  // EventsByPersistenceId, PersistenceIds) that has delivered everything
  // waits for a commit of this process's journal before it reads again, to
  // see the commits of other processes; 0: it waits for this process's
  // commits only. Each read journal has reader-connections threads and
  // connections of its own besides.
  absl::Duration refresh_interval = absl::Seconds(1);
  // `live-notify`: whether each write transaction announces its commit
  // (pg_notify) and each read journal with a live query listens for them
  // (a connection of its own), so live queries see other processes'
  // commits at once; refresh-interval stays as the fallback. Off: neither
  // (for a pooler that cannot LISTEN, say); other processes' commits come
  // by refresh-interval only.
  bool live_notify = true;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_OPTIONS_H_
