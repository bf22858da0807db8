#ifndef CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_MEMBERS_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_MEMBERS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/storage/member_store.h"

namespace cairn::persistence {

namespace postgres_internal {
class PgConnectionPool;
struct PgListenerOptions;
}  // namespace postgres_internal

// A cluster's members in the journal's database and schema
// (docs/POSTGRESQL.md, "Members"): one row per address in the schema's
// cairn_member table, expiries on the server's clock (one clock for every
// process), and changes announced with NOTIFY on a channel of the
// schema's own, in the transaction of the change, so a change is announced
// only once it committed. The MemberStore contract
// (persistence/storage/member_store.h) says what each call does.
//
// Every call but Watch is one statement on a pooled connection, blocking
// the caller: call it from a thread that may block, not from an actor's
// handler. One attempt takes at most the options' connect timeout if it
// makes a connection (none idle; libpq's: whole seconds, at least 2),
// plus twice the call timeout when the server does not answer at all (the
// first round trip left unanswered breaks the connection, the rest fail
// at once). A call whose connection was found lost (a server restart,
// say) is attempted once more on a new connection, all but
// RemoveIfExpired, which a repeat could not answer truly: so a call
// blocks at most 2 x (connect timeout + 2 x call timeout), after a
// restart usually a connect and the statement. Errors: InvalidArgument for an
// empty address, a zero uid, a non-positive ttl, or a NUL character in an
// address or a role; FailedPrecondition when the row of (address, uid) is
// gone; otherwise the connection's (Unavailable, DeadlineExceeded).
//
// Thread safety: every method may be called from any thread.
class PostgresMembers final : public MemberStore {
 public:
  // Connects once to make the schema's tables if missing (as the journal
  // does); the errors of RegisterPostgresPlugins' Create.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PostgresMembers>> Open(
      const PostgresOptions& options);
  ~PostgresMembers() override;
  PostgresMembers(const PostgresMembers&) = delete;
  PostgresMembers& operator=(const PostgresMembers&) = delete;

  [[nodiscard]] absl::Status Join(const MemberRecord& member,
                                  absl::Duration ttl) override;
  [[nodiscard]] absl::Status Renew(const std::string& address, int64_t uid,
                                   absl::Duration ttl) override;
  [[nodiscard]] absl::Status SetStatus(const std::string& address, int64_t uid,
                                       MemberStatus status) override;
  [[nodiscard]] absl::Status Remove(const std::string& address,
                                    int64_t uid) override;
  [[nodiscard]] absl::StatusOr<bool> RemoveIfExpired(const std::string& address,
                                                     int64_t uid) override;
  [[nodiscard]] absl::StatusOr<MemberSnapshot> Read() override;

  // LISTENs on the schema's channel with a connection of its own (not the
  // pool's), from before Watch returns: a change committed after it
  // returned is announced. A lost connection is made again with the
  // options' reconnect backoff (each wait at least 10 ms, plus up to a
  // fifth at random), then `changed` is called once. The watch may
  // outlive the store. InvalidArgument for an empty `changed`;
  // Unavailable if the server cannot be reached now.
  //
  // Destroying the watch stops its thread and waits for it: for a call of
  // `changed` in progress, and for a round trip in progress, at most the
  // connect timeout (as above) plus twice the call timeout (connecting
  // again, then LISTEN, with no answer). `changed` may destroy its own
  // watch: that does not wait, and no call follows.
  [[nodiscard]] absl::StatusOr<std::unique_ptr<MemberWatch>> Watch(
      std::function<void()> changed) override;

 private:
  PostgresMembers(std::unique_ptr<postgres_internal::PgConnectionPool> pool,
                  std::unique_ptr<postgres_internal::PgListenerOptions> listen);

  std::unique_ptr<postgres_internal::PgConnectionPool> pool_;
  // How Watch connects, and the channel the changes are announced on.
  const std::unique_ptr<const postgres_internal::PgListenerOptions> listen_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_MEMBERS_H_
