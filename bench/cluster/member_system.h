#ifndef CAIRN_BENCH_CLUSTER_MEMBER_SYSTEM_H_
#define CAIRN_BENCH_CLUSTER_MEMBER_SYSTEM_H_

// What every process of cluster_sharding shares: an actor system that is a
// cluster member on 127.0.0.1 (members in PostgreSQL), and the settings of
// the regions and proxies (leases in PostgreSQL), the same everywhere.

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::bench::cluster {

struct ClusterOptions {
  std::string postgres_url;
  // A schema of the benchmark's own (its members' and leases' tables).
  std::string schema;
  // The leases' time to live, and the members' too (SHARDING.md: no
  // longer than member-ttl): how long a killed member's shards stay where
  // it was.
  absl::Duration lease_ttl = absl::Seconds(10);
};

// Akka's default number of shards.
inline constexpr int kShards = 100;

// Starts a member, named as all of them are. Dies on failure.
std::unique_ptr<actor::ActorSystem> StartMember(const ClusterOptions& options);

// The regions' and proxies' settings, with a lease store of their own on
// the options' database. No rebalancing: an entity moves only when the
// benchmark kills or stops its process. Dies if it cannot connect.
sharding::EntityRegionSettings RegionSettings(const ClusterOptions& options);

// ShardingEnvelope's extractor.
std::shared_ptr<const sharding::MessageExtractor> Extractor();

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_MEMBER_SYSTEM_H_
