#ifndef CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_CONFIG_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_CONFIG_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "hocon/config.h"
#include "persistence/postgresql/postgres_options.h"

namespace cairn::persistence {

// The PostgreSQL plugins' settings from the config block `block` (e.g.
// "akka.persistence.journal.postgresql"; this package's reference.conf,
// linked with this library, sets every key).
// A missing key or one of the wrong type is its Config error; a value out
// of range (reader-connections < 1, a negative duration, min backoff above
// max) InvalidArgument naming the key.
[[nodiscard]] absl::StatusOr<PostgresOptions> PostgresOptionsFromConfig(
    const hocon::Config& config, std::string_view block);

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_POSTGRES_CONFIG_H_
