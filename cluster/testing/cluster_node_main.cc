// A node of the cluster's multi-process test (cluster/multi_process_test.cc):
// an actor system with `akka.actor.provider = cluster` on a free port of
// 127.0.0.1, its members in PostgreSQL (PostgresMembers on the schema
// given), and HOCON added from its fourth argument (the intervals).
//
//   cluster_node NAME CONNECTION_STRING SCHEMA [HOCON]
//
// It prints its address as the first line of its stdout once it has
// started (and joined: its row is being written), then runs until its
// system terminates: on SIGTERM (coordinated shutdown: it leaves), or when
// it learns it was removed from the cluster. It exits 0 then.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "cluster/cluster_setup.h"
#include "hocon/config.h"
#include "persistence/postgresql/postgres_members.h"
#include "persistence/postgresql/postgres_options.h"

namespace {

int Run(const std::string& name, const std::string& url,
        const std::string& schema, const std::string& extra) {
  cairn::persistence::PostgresOptions options;
  options.connection_string = url;
  options.schema = schema;
  absl::StatusOr<std::unique_ptr<cairn::persistence::PostgresMembers>> members =
      cairn::persistence::PostgresMembers::Open(options);
  if (!members.ok()) {
    std::fprintf(stderr, "cluster_node %s: %s\n", name.c_str(),
                 members.status().ToString().c_str());
    return 1;
  }
  absl::StatusOr<cairn::hocon::Config> config =
      cairn::hocon::Config::ParseString(absl::StrCat(R"(
        akka.loglevel = WARNING
        akka.actor.provider = cluster
        akka.remote.artery.canonical.hostname = "127.0.0.1"
        akka.remote.artery.canonical.port = 0
      )",
                                                     extra));
  if (!config.ok()) {
    std::fprintf(stderr, "cluster_node %s: %s\n", name.c_str(),
                 config.status().ToString().c_str());
    return 2;
  }
  cairn::actor::ActorSystemOptions system_options;
  system_options.setup =
      cairn::actor::ActorSystemSetup().With(cairn::cluster::ClusterSetup{
          std::shared_ptr<cairn::persistence::MemberStore>(
              *std::move(members))});
  absl::StatusOr<std::unique_ptr<cairn::actor::ActorSystem>> system =
      cairn::actor::ActorSystem::Create(name, *config,
                                        std::move(system_options));
  if (!system.ok()) {
    std::fprintf(stderr, "cluster_node %s: %s\n", name.c_str(),
                 system.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", (*system)->address().ToString().c_str());
  std::fflush(stdout);
  (*system)->WhenTerminated().wait();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s NAME CONNECTION_STRING SCHEMA [HOCON]\n",
                 argv[0]);
    return 2;
  }
  return Run(argv[1], argv[2], argv[3], argc == 5 ? argv[4] : "");
}
