#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SCHEMA_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SCHEMA_H_

#include <string_view>

#include "absl/status/status.h"
#include "persistence/postgresql/internal/postgres_connection.h"

namespace cairn::persistence::postgres_internal {

// The version of the tables this code reads and writes (docs/POSTGRESQL.md,
// "Tables"), kept in the one row of cairn_schema. 2 added the projections'
// tables, 3 the check of a projection's offset at commit
// (cairn_advance_projection), 4 the cluster's members (cairn_member), 5
// the durable state store's table (durable_state, cairn_write_state); an
// older schema is brought to 5 on first use.
inline constexpr int kPgSchemaVersion = 5;

// The SQLSTATE cairn_advance_stream raises when a write does not follow the
// stream's highest sequence number; its message is that highest number.
inline constexpr std::string_view kNotFollowingSqlState = "CN001";

// The SQLSTATE cairn_check_lease raises when a write's fence does not hold
// the lease (any more); its message says who holds it, with which token.
inline constexpr std::string_view kLeaseNotHeldSqlState = "CN002";

// The SQLSTATE cairn_advance_projection raises when the stored offset of
// the projection is not the one the commit expects; its message is the
// stored offset and envelope count, separated by a space.
inline constexpr std::string_view kProjectionMovedSqlState = "CN004";

// The SQLSTATE cairn_write_state raises when a durable state write is not
// at the stored revision + 1; its message is the stored revision (0: none).
inline constexpr std::string_view kStateRevisionSqlState = "CN005";

// Checks a fence (persistence/storage/write_fence.h): $1 the lease, $2 the
// owner, $3 the token. Raises kLeaseNotHeldSqlState unless the lease is
// held so; otherwise its row lock (FOR SHARE) keeps the lease from being
// taken over until the transaction ends, so what the transaction changes
// after the check is changed only while the lease is held.
inline constexpr char kCheckLeaseSql[] = "SELECT cairn_check_lease($1, $2, $3)";

// An error from the statements of a fenced change, as its caller's outcome:
// FailedPrecondition "<what>: <whose lease it is>" if it is
// cairn_check_lease's refusal; `error` itself otherwise.
absl::Status LeaseRefusal(const absl::Status& error, std::string_view what);

// Makes `schema` and cairn's tables in it unless they exist, idempotent and
// safe when several processes do it at once (an advisory lock orders
// them), and brings tables of an older version up to this one. The
// connection's search_path must be `schema`. FailedPrecondition
// if the schema holds tables of a newer cairn (a higher version), or a
// cairn_schema table without its version row; the connection's errors
// otherwise.
[[nodiscard]] absl::Status EnsurePgSchema(PgConnection& connection,
                                          std::string_view schema);

// OK for a schema name cairn accepts: a plain lowercase identifier
// ([a-z_][a-z0-9_]*, at most 63 characters), so it needs no quoting in a
// search_path; InvalidArgument naming it otherwise.
[[nodiscard]] absl::Status CheckPgSchemaName(std::string_view schema);

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SCHEMA_H_
