// The README's "Across processes" example: its two processes as two
// actor systems in this one, each with its own port on loopback.
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
// After the headers it needs, as in the README.
#include "examples/readme/remote_example.h"

namespace {

std::unique_ptr<cairn::actor::ActorSystem> RemoteSystem(
    const std::string& name) {
  absl::StatusOr<cairn::hocon::Config> config =
      cairn::hocon::Config::ParseString(
          "akka.actor.provider = remote\n"
          "akka.remote.artery.canonical.port = 0\n");
  EXPECT_OK(config);
  absl::StatusOr<std::unique_ptr<cairn::actor::ActorSystem>> system =
      cairn::actor::ActorSystem::Create(name, *config);
  EXPECT_OK(system);
  return *std::move(system);
}

TEST(RemoteExampleTest, BAsksAnActorOfA) {
  std::unique_ptr<cairn::actor::ActorSystem> a = RemoteSystem("a");
  std::unique_ptr<cairn::actor::ActorSystem> b = RemoteSystem("b");
  ServeEcho(*a);
  EXPECT_EQ(AskEcho(*b, a->address().ToString()), "hello");
  b->Terminate().wait();
  a->Terminate().wait();
}

}  // namespace
