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
// the caller for at most the options' call timeout (twice it when the
// server does not answer at all): call it from a thread that may block,
// not from an actor's handler. Errors: InvalidArgument for an empty
// address, a zero uid, a non-positive ttl, or a NUL character in an
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
  // options' reconnect backoff, then `changed` is called once. The watch
  // may outlive the store. InvalidArgument for an empty `changed`;
  // Unavailable if the server cannot be reached now.
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
