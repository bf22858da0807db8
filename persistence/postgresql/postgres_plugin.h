#ifndef CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_PLUGIN_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_PLUGIN_H_

#include "absl/status/status.h"
#include "persistence/postgresql/postgres_options.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::persistence {

inline constexpr char kPostgresJournalPluginId[] =
    "akka.persistence.journal.postgresql";
inline constexpr char kPostgresSnapshotStorePluginId[] =
    "akka.persistence.snapshot-store.postgresql";
// Here rather than with the other ids in plugin_registry.h, which this
// plugin does not own.
inline constexpr char kPostgresDurableStateStorePluginId[] =
    "akka.persistence.state.postgresql";

// Registers kPostgresJournalPluginId, kPostgresSnapshotStorePluginId and
// kPostgresDurableStateStorePluginId on the server and schema `options`
// name. Nothing connects here: each Create
// connects, makes the schema's tables if they are missing, and fails with
// what went wrong: FailedPrecondition without a connection string, for a
// password variable that is not set or a password file that cannot be
// read (naming it, never the password), or for tables of a newer cairn;
// InvalidArgument for a bad schema name or reader-connections; Unavailable
// if the server cannot be reached. AlreadyExists if the ids are registered
// already.
//
// Every journal, snapshot store and durable state store created has
// connections of its own: several may exist at once, in one process or in
// many, on one schema.
[[nodiscard]] absl::Status RegisterPostgresPlugins(PluginRegistry& registry,
                                                   PostgresOptions options);

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_PLUGIN_H_
