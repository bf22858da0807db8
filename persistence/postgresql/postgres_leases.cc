#include "persistence/postgresql/postgres_leases.h"

#include <utility>

#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/postgresql/internal/postgres_settings.h"

namespace cairn::persistence {
namespace {

using postgres_internal::PgConnection;
using postgres_internal::PgParams;
using postgres_internal::PgResult;
using postgres_internal::PgStatement;

constexpr char kAcquire[] = "acquire";
constexpr char kRenew[] = "renew";
constexpr char kRelease[] = "release";
constexpr char kHolder[] = "holder";
constexpr char kCurrentHolder[] = "current_holder";

// A free lease is taken with the next token; a held one is left alone (no
// row comes back). clock_timestamp(): the time of the statement, not of
// its transaction.
constexpr PgStatement kStatements[] = {
    {kAcquire,
     "INSERT INTO cairn_lease AS l (name, owner, fencing_token, expires_at) "
     "VALUES ($1, $2, 1, clock_timestamp() + $3::bigint * interval '1 "
     "microsecond') "
     "ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, "
     "fencing_token = l.fencing_token + 1, expires_at = EXCLUDED.expires_at "
     "WHERE l.expires_at <= clock_timestamp() OR l.owner = EXCLUDED.owner "
     "RETURNING fencing_token"},
    {kRenew,
     "UPDATE cairn_lease SET expires_at = clock_timestamp() + $4::bigint * "
     "interval "
     "'1 microsecond' WHERE name = $1 AND owner = $2 AND fencing_token = $3 "
     "AND expires_at > clock_timestamp()"},
    {kRelease,
     "UPDATE cairn_lease SET expires_at = '-infinity' WHERE name = $1 AND "
     "owner = $2 AND fencing_token = $3"},
    {kHolder,
     "SELECT owner, fencing_token, to_char(expires_at, "
     "'YYYY-MM-DD HH24:MI:SS.MS TZ') FROM cairn_lease WHERE name = $1"},
    // The expiry in microseconds since the Unix epoch.
    {kCurrentHolder,
     "SELECT owner, fencing_token, "
     "(extract(epoch FROM expires_at) * 1000000)::bigint FROM cairn_lease "
     "WHERE name = $1 AND expires_at > clock_timestamp()"},
};

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresLeases>> PostgresLeases::Open(
    const PostgresOptions& options) {
  absl::StatusOr<std::unique_ptr<postgres_internal::PgConnectionPool>> pool =
      postgres_internal::OpenPgPool(options, kStatements);
  if (!pool.ok()) return pool.status();
  return std::unique_ptr<PostgresLeases>(new PostgresLeases(*std::move(pool)));
}

PostgresLeases::PostgresLeases(
    std::unique_ptr<postgres_internal::PgConnectionPool> pool)
    : pool_(std::move(pool)) {}

PostgresLeases::~PostgresLeases() = default;

absl::StatusOr<WriteFence> PostgresLeases::Acquire(const std::string& lease,
                                                   const std::string& owner,
                                                   absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        base::StrCat("lease '", lease, "': the time to live must be positive"));
  }
  WriteFence fence{lease, owner, 0};
  std::string held_by;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> granted = connection.ExecutePrepared(
            kAcquire, PgParams().Text(lease).Text(owner).Int64(
                          absl::ToInt64Microseconds(ttl)));
        if (!granted.ok()) return granted.status();
        if (granted->rows() == 1) {
          fence.token = granted->Int64(0, 0);
          return absl::OkStatus();
        }
        absl::StatusOr<PgResult> holder =
            connection.ExecutePrepared(kHolder, PgParams().Text(lease));
        if (!holder.ok()) return holder.status();
        if (holder->rows() == 1) {
          held_by = base::StrCat("'", holder->Bytes(0, 0), "' (fencing token ",
                                 holder->Int64(0, 1), ") until ",
                                 holder->Bytes(0, 2));
        }
        return absl::OkStatus();
      },
      // Repeating an acquire whose answer was lost gives the same owner a
      // new holding: its token is the one that counts.
      [] { return true; });
  if (!status.ok()) return base::OwnCopy(status);
  if (fence.token == 0) {
    return absl::FailedPreconditionError(
        base::StrCat("lease '", lease, "' is held by ",
                     held_by.empty() ? "another owner" : held_by));
  }
  return fence;
}

absl::Status PostgresLeases::Renew(const WriteFence& fence,
                                   absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(base::StrCat(
        "lease '", fence.lease, "': the time to live must be positive"));
  }
  int64_t renewed = 0;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> result = connection.ExecutePrepared(
            kRenew, PgParams()
                        .Text(fence.lease)
                        .Text(fence.owner)
                        .Int64(fence.token)
                        .Int64(absl::ToInt64Microseconds(ttl)));
        if (!result.ok()) return result.status();
        renewed = result->affected();
        return absl::OkStatus();
      },
      [] { return true; });
  if (!status.ok()) return base::OwnCopy(status);
  if (renewed == 0) {
    return absl::FailedPreconditionError(base::StrCat(
        "lease '", fence.lease, "' of '", fence.owner, "' (fencing token ",
        fence.token, ") is lost: it expired or was granted again"));
  }
  return absl::OkStatus();
}

absl::Status PostgresLeases::Release(const WriteFence& fence) {
  return base::OwnCopy(pool_->Run(
      [&](PgConnection& connection) {
        return connection
            .ExecutePrepared(kRelease, PgParams()
                                           .Text(fence.lease)
                                           .Text(fence.owner)
                                           .Int64(fence.token))
            .status();
      },
      [] { return true; }));
}

absl::StatusOr<std::optional<LeaseHolding>> PostgresLeases::Holder(
    const std::string& lease) {
  std::optional<LeaseHolding> holding;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> result =
            connection.ExecutePrepared(kCurrentHolder, PgParams().Text(lease));
        if (!result.ok()) return result.status();
        holding.reset();
        if (result->rows() == 1) {
          holding = LeaseHolding{std::string(result->Bytes(0, 0)),
                                 result->Int64(0, 1),
                                 absl::FromUnixMicros(result->Int64(0, 2))};
        }
        return absl::OkStatus();
      },
      [] { return true; });
  if (!status.ok()) return base::OwnCopy(status);
  return holding;
}

}  // namespace cairn::persistence
