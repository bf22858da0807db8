#include "remote/testing/node_messages.h"

#include <utility>

#include "absl/status/status.h"
#include "hocon/config.h"
#include "remote/remote_setup.h"
#include "serialization/json_serialization.h"
#include "serialization/serialization.h"

namespace cairn::remote::testing {

namespace {

absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
NodeRegistry() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  for (const absl::Status& s :
       {serialization::RegisterJson<Relay>(*registry, "node.Relay"),
        serialization::RegisterJson<Expect>(*registry, "node.Expect"),
        serialization::RegisterJson<Numbered>(*registry, "node.Numbered"),
        serialization::RegisterJson<Summary>(*registry, "node.Summary")}) {
    if (!s.ok()) return s;
  }
  return registry;
}

}  // namespace

absl::StatusOr<std::unique_ptr<actor::ActorSystem>> MakeNodeSystem(
    const std::string& name, const std::string& extra_config) {
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString(std::string(R"(
        akka.loglevel = WARNING
        akka.actor.provider = remote
        akka.remote.artery.canonical.hostname = "127.0.0.1"
        akka.remote.artery.canonical.port = 0
      )") + extra_config);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
      registry = NodeRegistry();
  if (!registry.ok()) return registry.status();
  actor::ActorSystemOptions options;
  options.setup = actor::ActorSystemSetup().With(RemoteSetup{*registry});
  return actor::ActorSystem::Create(name, *config, std::move(options));
}

}  // namespace cairn::remote::testing
