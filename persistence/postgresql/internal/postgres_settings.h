#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SETTINGS_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SETTINGS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "persistence/postgresql/internal/postgres_connection.h"
#include "persistence/postgresql/internal/postgres_connection_pool.h"
#include "persistence/postgresql/postgres_options.h"

namespace cairn::persistence::postgres_internal {

// How to connect, from the plugins' options: FailedPrecondition without a
// connection string, or for a password variable that is not set or a
// password file that cannot be read (naming it, never the password);
// InvalidArgument for a bad schema name. Read at each call, so a password
// changed in its file is used by the next plugin made.
[[nodiscard]] absl::StatusOr<PgConnectionSettings> PgSettingsFrom(
    const PostgresOptions& options);

PgReconnectBackoff PgBackoffFrom(const PostgresOptions& options);

// For a component with no connection of its own (leases, the projection
// store): connects once to make the schema's tables if missing
// (EnsurePgSchema), then gives a pool whose connections prepare
// `statements`, which must outlive it. The errors of PgSettingsFrom,
// PgConnection::Connect and EnsurePgSchema.
[[nodiscard]] absl::StatusOr<std::unique_ptr<PgConnectionPool>> OpenPgPool(
    const PostgresOptions& options, absl::Span<const PgStatement> statements);

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_POSTGRES_SETTINGS_H_
