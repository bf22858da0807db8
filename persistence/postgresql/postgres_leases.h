#ifndef CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_LEASES_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_LEASES_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/storage/lease_store.h"
#include "persistence/storage/persistent_repr.h"

namespace cairn::persistence {

namespace postgres_internal {
class PgConnectionPool;
}  // namespace postgres_internal

// Leases with fencing tokens in the journal's database and schema
// (docs/POSTGRESQL.md, "Leases and fencing"): who may write for a group of
// entities (a shard), across processes. A holding is granted for a time
// to live and kept by renewing it before it runs out; each grant of a
// lease gets a fencing token above every earlier one. The writes of a
// holder carry its WriteFence (AtomicWrite::fence), as do its deletes and
// snapshot saves and deletes, and the PostgreSQL journal and snapshot
// store apply them only while the holding is still current, in the same
// transaction: once a lease expired or went to another owner, its old
// holder can never change the store with it again, whatever it believes
// (a process paused past its lease, a partitioned one).
//
// Times are the server's (one clock for every process); a holder should
// renew well within the time to live (a third of it, say), and treat a
// failed renewal as the lease lost.
//
// Every call is one statement on a pooled connection, blocking the caller
// for at most the options' call timeout: call it from a thread that may
// block, not from an actor's handler. Errors: FailedPrecondition when the
// lease is held by another owner, or is no longer this holding; otherwise
// the connection's (Unavailable, DeadlineExceeded).
//
// Thread safety: every method may be called from any thread.
class PostgresLeases final : public LeaseStore {
 public:
  // Connects once to make the schema's tables if missing (as the journal
  // does); the errors of RegisterPostgresPlugins' Create.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<PostgresLeases>> Open(
      const PostgresOptions& options);
  ~PostgresLeases() override;
  PostgresLeases(const PostgresLeases&) = delete;
  PostgresLeases& operator=(const PostgresLeases&) = delete;

  // Grants `lease` to `owner` for `ttl` if it is free: never granted,
  // expired, released, or held by `owner` already (then a new holding with
  // a new token: the old one's writes stop being stored). The fence of the
  // new holding; FailedPrecondition naming the holder and when its holding
  // runs out if another owner holds it. `ttl` must be positive.
  [[nodiscard]] absl::StatusOr<WriteFence> Acquire(const std::string& lease,
                                                   const std::string& owner,
                                                   absl::Duration ttl) override;

  // Extends the holding to `ttl` from now. FailedPrecondition if it is no
  // longer current (expired, or granted again since): the lease is lost.
  [[nodiscard]] absl::Status Renew(const WriteFence& fence,
                                   absl::Duration ttl) override;

  // Ends the holding now, so another owner can acquire the lease at once.
  // OK if it had ended already (nothing changes then).
  [[nodiscard]] absl::Status Release(const WriteFence& fence) override;

  // The current holding (expiry on the server's clock); nullopt when the
  // lease is free.
  [[nodiscard]] absl::StatusOr<std::optional<LeaseHolding>> Holder(
      const std::string& lease) override;

 private:
  explicit PostgresLeases(
      std::unique_ptr<postgres_internal::PgConnectionPool> pool);

  std::unique_ptr<postgres_internal::PgConnectionPool> pool_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_LEASES_H_
