#ifndef CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_CONFIG_H_
#define CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_CONFIG_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "hocon/config.h"
#include "persistence/rocksdb/rocksdb_options.h"

namespace cairn::persistence {

// The RocksDB plugins' settings from the config block `block` (e.g.
// "akka.persistence.journal.rocksdb"; this package's reference.conf, linked
// with this library, sets every key). Everything but `env` and `log`,
// which the caller sets. A missing key or one of the wrong type is its
// Config error; a bad value (a mode other than read-write, read-only or
// secondary; a negative catch-up-interval; reader-threads < 1)
// InvalidArgument naming the key.
[[nodiscard]] absl::StatusOr<RocksDbOptions> RocksDbOptionsFromConfig(
    const hocon::Config& config, std::string_view block);

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_ROCKSDB_ROCKSDB_CONFIG_H_
