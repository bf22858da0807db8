#include "persistence/postgresql/postgres_members.h"

#include <string_view>
#include <utility>
#include <vector>

#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/postgresql/internal/postgres_listener.h"
#include "persistence/postgresql/internal/postgres_settings.h"

namespace cairn::persistence {
namespace {

using postgres_internal::PgConnection;
using postgres_internal::PgListener;
using postgres_internal::PgListenerOptions;
using postgres_internal::PgParams;
using postgres_internal::PgResult;
using postgres_internal::PgStatement;

constexpr char kJoin[] = "member_join";
constexpr char kRenew[] = "member_renew";
constexpr char kSetStatus[] = "member_set_status";
constexpr char kRemove[] = "member_remove";
constexpr char kRemoveIfExpired[] = "member_remove_if_expired";
constexpr char kRead[] = "member_read";

// What changes a row announces it on the channel (the last parameter) in
// the same statement, so in its transaction: PostgreSQL sends a
// notification at commit, and only then, and a listener reading after it
// sees the change. A renewal moves only the expiry, and is not announced.
// clock_timestamp(): the time of the statement, the server's.
constexpr PgStatement kStatements[] = {
    {kJoin,
     "WITH joined AS ("
     "INSERT INTO cairn_member AS m (address, uid, roles, status, expires_at) "
     "VALUES ($1, $2::bigint, $3::text[], 'up', clock_timestamp() + "
     "$4::bigint * interval '1 microsecond') "
     "ON CONFLICT (address) DO UPDATE SET uid = EXCLUDED.uid, "
     "roles = EXCLUDED.roles, status = EXCLUDED.status, "
     "expires_at = EXCLUDED.expires_at RETURNING 1) "
     "SELECT pg_notify($5, '') FROM joined"},
    {kRenew,
     "UPDATE cairn_member SET expires_at = clock_timestamp() + $3::bigint * "
     "interval '1 microsecond' WHERE address = $1 AND uid = $2::bigint"},
    {kSetStatus,
     "WITH changed AS (UPDATE cairn_member SET status = $3 "
     "WHERE address = $1 AND uid = $2::bigint RETURNING 1) "
     "SELECT pg_notify($4, '') FROM changed"},
    {kRemove,
     "WITH removed AS (DELETE FROM cairn_member "
     "WHERE address = $1 AND uid = $2::bigint RETURNING 1) "
     "SELECT pg_notify($3, '') FROM removed"},
    {kRemoveIfExpired,
     "WITH removed AS (DELETE FROM cairn_member "
     "WHERE address = $1 AND uid = $2::bigint "
     "AND expires_at <= clock_timestamp() RETURNING 1) "
     "SELECT pg_notify($3, '') FROM removed"},
    // The clock read once, with every row (none: one row of NULLs).
    // Ordered bytewise, as every store orders it: the collation is named
    // here too, as a table made by hand may lack the column's "C".
    {kRead,
     "SELECT c.now, m.address, m.uid, m.roles, m.status, m.expires_at "
     "FROM (SELECT clock_timestamp() AS now) c "
     "LEFT JOIN cairn_member m ON true ORDER BY m.address COLLATE \"C\""},
};

// A timestamptz in binary: microseconds since 2000-01-01 00:00 UTC.
constexpr int64_t kPgEpochUnixMicros = 946'684'800'000'000;

absl::Time PgTime(const PgResult& result, int row, int column) {
  return absl::FromUnixMicros(result.Int64(row, column) + kPgEpochUnixMicros);
}

absl::StatusOr<MemberStatus> StatusNamed(std::string_view name) {
  for (MemberStatus status :
       {MemberStatus::kUp, MemberStatus::kLeaving, MemberStatus::kExiting}) {
    if (name == MemberStatusName(status)) return status;
  }
  return absl::DataLossError(
      base::StrCat("cairn_member: unknown status '", name, "'"));
}

absl::Status CheckMember(const std::string& address, int64_t uid) {
  if (address.empty()) {
    return absl::InvalidArgumentError("member: the address is empty");
  }
  if (uid == 0) {
    return absl::InvalidArgumentError(
        base::StrCat("member '", address, "': the uid must not be 0"));
  }
  return postgres_internal::CheckPgText("member address", address);
}

absl::Status CheckTtl(const std::string& address, absl::Duration ttl) {
  if (ttl > absl::ZeroDuration()) return absl::OkStatus();
  return absl::InvalidArgumentError(base::StrCat(
      "member '", address, "': the time to live must be positive"));
}

absl::Status Gone(const std::string& address, int64_t uid) {
  return absl::FailedPreconditionError(base::StrCat(
      "member '", address, "' (uid ", uid,
      ") has no row: it was removed, or another incarnation joined at its "
      "address"));
}

// Ends the listener, and with it the calls, when the watch is destroyed.
class ListeningWatch final : public MemberWatch {
 public:
  explicit ListeningWatch(std::unique_ptr<PgListener> listener)
      : listener_(std::move(listener)) {}

 private:
  std::unique_ptr<PgListener> listener_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresMembers>> PostgresMembers::Open(
    const PostgresOptions& options) {
  absl::StatusOr<postgres_internal::PgConnectionSettings> settings =
      postgres_internal::PgSettingsFrom(options);
  if (!settings.ok()) return settings.status();
  absl::StatusOr<std::unique_ptr<postgres_internal::PgConnectionPool>> pool =
      postgres_internal::OpenPgPool(options, kStatements);
  if (!pool.ok()) return pool.status();
  auto listen = std::make_unique<PgListenerOptions>();
  listen->settings = *std::move(settings);
  // An operator tells the watch's connection from the pool's.
  listen->settings.application_name += " listener";
  listen->channel = postgres_internal::PgChannelName(options.schema, "members");
  listen->backoff = postgres_internal::PgBackoffFrom(options);
  return std::unique_ptr<PostgresMembers>(
      new PostgresMembers(*std::move(pool), std::move(listen)));
}

PostgresMembers::PostgresMembers(
    std::unique_ptr<postgres_internal::PgConnectionPool> pool,
    std::unique_ptr<PgListenerOptions> listen)
    : pool_(std::move(pool)), listen_(std::move(listen)) {}

PostgresMembers::~PostgresMembers() = default;

absl::Status PostgresMembers::Join(const MemberRecord& member,
                                   absl::Duration ttl) {
  if (absl::Status s = CheckMember(member.address, member.uid); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckTtl(member.address, ttl); !s.ok()) return s;
  for (const std::string& role : member.roles) {
    if (absl::Status s = postgres_internal::CheckPgText(
            base::StrCat("member '", member.address, "': role"), role);
        !s.ok()) {
      return s;
    }
  }
  return base::OwnCopy(pool_->Run(
      [&](PgConnection& connection) {
        return connection
            .ExecutePrepared(kJoin, PgParams()
                                        .Text(member.address)
                                        .Int64(member.uid)
                                        .TextArray(member.roles)
                                        .Int64(absl::ToInt64Microseconds(ttl))
                                        .Text(listen_->channel))
            .status();
      },
      // A join repeated writes the same row again.
      [] { return true; }));
}

absl::Status PostgresMembers::Renew(const std::string& address, int64_t uid,
                                    absl::Duration ttl) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  if (absl::Status s = CheckTtl(address, ttl); !s.ok()) return s;
  int64_t renewed = 0;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> result = connection.ExecutePrepared(
            kRenew, PgParams().Text(address).Int64(uid).Int64(
                        absl::ToInt64Microseconds(ttl)));
        if (!result.ok()) return result.status();
        renewed = result->affected();
        return absl::OkStatus();
      },
      // A renewal repeated moves the same row's expiry again.
      [] { return true; });
  if (!status.ok()) return base::OwnCopy(status);
  return renewed == 0 ? Gone(address, uid) : absl::OkStatus();
}

absl::Status PostgresMembers::SetStatus(const std::string& address, int64_t uid,
                                        MemberStatus status) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  int changed = 0;
  absl::Status outcome = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> result = connection.ExecutePrepared(
            kSetStatus, PgParams()
                            .Text(address)
                            .Int64(uid)
                            .Text(MemberStatusName(status))
                            .Text(listen_->channel));
        if (!result.ok()) return result.status();
        changed = result->rows();
        return absl::OkStatus();
      },
      // A status set again finds the row, with that status already.
      [] { return true; });
  if (!outcome.ok()) return base::OwnCopy(outcome);
  return changed == 0 ? Gone(address, uid) : absl::OkStatus();
}

absl::Status PostgresMembers::Remove(const std::string& address, int64_t uid) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  return base::OwnCopy(pool_->Run(
      [&](PgConnection& connection) {
        return connection
            .ExecutePrepared(kRemove, PgParams().Text(address).Int64(uid).Text(
                                          listen_->channel))
            .status();
      },
      // A removal repeated finds the row gone, which is OK as well.
      [] { return true; }));
}

absl::StatusOr<bool> PostgresMembers::RemoveIfExpired(
    const std::string& address, int64_t uid) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  bool removed = false;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        absl::StatusOr<PgResult> result = connection.ExecutePrepared(
            kRemoveIfExpired,
            PgParams().Text(address).Int64(uid).Text(listen_->channel));
        if (!result.ok()) return result.status();
        removed = result->rows() == 1;
        return absl::OkStatus();
      },
      // Not repeated: a removal that committed with its answer lost would
      // be found gone and answered false; Unavailable, the caller asks
      // again, on a connection that answers.
      [] { return false; });
  if (!status.ok()) return base::OwnCopy(status);
  return removed;
}

absl::StatusOr<MemberSnapshot> PostgresMembers::Read() {
  MemberSnapshot snapshot;
  absl::Status status = pool_->Run(
      [&](PgConnection& connection) {
        snapshot = MemberSnapshot();  // from a failed first attempt
        absl::StatusOr<PgResult> result =
            connection.ExecutePrepared(kRead, PgParams());
        if (!result.ok()) return result.status();
        if (result->rows() == 0) {
          return absl::InternalError("cairn_member: the read gave no clock");
        }
        snapshot.now = PgTime(*result, 0, 0);
        for (int row = 0; row < result->rows(); ++row) {
          if (result->IsNull(row, 1)) continue;  // no member: the clock alone
          MemberRecord& member = snapshot.members.emplace_back();
          member.address = std::string(result->Bytes(row, 1));
          member.uid = result->Int64(row, 2);
          absl::StatusOr<std::vector<std::string>> roles =
              result->TextArray(row, 3);
          if (!roles.ok()) return roles.status();
          member.roles = *std::move(roles);
          absl::StatusOr<MemberStatus> member_status =
              StatusNamed(result->Bytes(row, 4));
          if (!member_status.ok()) return member_status.status();
          member.status = *member_status;
          member.expires = PgTime(*result, row, 5);
        }
        return absl::OkStatus();
      },
      // A read repeated starts over, and changes nothing.
      [] { return true; });
  if (!status.ok()) return base::OwnCopy(status);
  return snapshot;
}

absl::StatusOr<std::unique_ptr<MemberWatch>> PostgresMembers::Watch(
    std::function<void()> changed) {
  if (!changed) {
    return absl::InvalidArgumentError("members: Watch needs a callback");
  }
  absl::StatusOr<std::unique_ptr<PgListener>> listener =
      PgListener::Start(*listen_, std::move(changed));
  if (!listener.ok()) return listener.status();
  return std::unique_ptr<MemberWatch>(new ListeningWatch(*std::move(listener)));
}

}  // namespace cairn::persistence
