#ifndef CAIRN_BENCH_CLUSTER_DROP_SCHEMA_H_
#define CAIRN_BENCH_CLUSTER_DROP_SCHEMA_H_

// Removes the benchmark's schema (its members' and leases' tables) once
// every process that used it has ended.

#include <string>

#include "absl/status/status.h"

namespace cairn::bench::cluster {

// DROP SCHEMA IF EXISTS `schema` CASCADE on the server at `url`, `schema`
// a plain lowercase identifier. Unavailable if it cannot connect, Internal
// with the server's message if the statement fails.
[[nodiscard]] absl::Status DropSchema(const std::string& url,
                                      const std::string& schema);

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_DROP_SCHEMA_H_
