#include "bench/cluster/member_system.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bench/cluster/die.h"
#include "cluster/cluster_setup.h"
#include "hocon/config.h"
#include "persistence/postgresql/postgres_leases.h"
#include "persistence/postgresql/postgres_members.h"
#include "persistence/postgresql/postgres_options.h"

namespace cairn::bench::cluster {
namespace {

persistence::PostgresOptions Postgres(const ClusterOptions& options) {
  persistence::PostgresOptions pg;
  pg.connection_string = options.postgres_url;
  pg.schema = options.schema;
  return pg;
}

std::string Millis(absl::Duration d) {
  return absl::StrCat(absl::ToInt64Milliseconds(d), "ms");
}

}  // namespace

std::unique_ptr<actor::ActorSystem> StartMember(const ClusterOptions& options) {
  absl::StatusOr<std::unique_ptr<persistence::PostgresMembers>> members =
      persistence::PostgresMembers::Open(Postgres(options));
  if (!members.ok()) Die("members: " + members.status().ToString());
  // A dead member's row is noticed by the refresh (every 500 ms), once it
  // has run out; it is renewed four times within its time to live.
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
      absl::StrCat(R"(
        akka.loglevel = ERROR
        akka.actor.provider = cluster
        akka.remote.artery.canonical.hostname = "127.0.0.1"
        akka.remote.artery.canonical.port = 0
        akka.cluster.membership.refresh-interval = 500ms
        akka.cluster.membership.member-ttl = )",
                   Millis(options.lease_ttl), R"(
        akka.cluster.membership.renew-interval = )",
                   Millis(options.lease_ttl / 4), "\n"));
  if (!config.ok()) Die(config.status().ToString());
  actor::ActorSystemOptions system_options;
  system_options.setup =
      actor::ActorSystemSetup().With(cairn::cluster::ClusterSetup{
          std::shared_ptr<persistence::MemberStore>(*std::move(members))});
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("bench", *config, std::move(system_options));
  if (!system.ok()) Die(system.status().ToString());
  return *std::move(system);
}

sharding::EntityRegionSettings RegionSettings(const ClusterOptions& options) {
  absl::StatusOr<std::unique_ptr<persistence::PostgresLeases>> leases =
      persistence::PostgresLeases::Open(Postgres(options));
  if (!leases.ok()) Die("leases: " + leases.status().ToString());
  sharding::EntityRegionSettings settings;
  settings.number_of_shards = kShards;
  settings.lease_store = *std::move(leases);
  settings.lease_ttl = options.lease_ttl;
  settings.rebalance_interval = absl::ZeroDuration();
  return settings;
}

std::shared_ptr<const sharding::MessageExtractor> Extractor() {
  return std::make_shared<sharding::EnvelopeExtractor>();
}

}  // namespace cairn::bench::cluster
