// The README's typed counter, run as readme_test runs the classic one: the
// code comes from README.md itself (the genrule :typed_example).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/storage/testing/temp_dir.h"
// After the headers it needs, as in the README.
#include "examples/readme/typed_example.h"

namespace {

std::unique_ptr<actor::ActorSystem> SystemOn(const std::string& dir) {
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString("akka.persistence.journal.rocksdb { dir = \"" +
                                 dir + "\", fsync = off }");
  EXPECT_OK(config);
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("demo", *config);
  EXPECT_OK(system);
  return *std::move(system);
}

TEST(TypedExampleTest, TheTotalSurvivesARestartOfTheSystem) {
  ASSERT_OK_AND_ASSIGN(persistence::testing::TempDir dir,
                       persistence::testing::TempDir::Make("typed-readme"));
  {
    std::unique_ptr<actor::ActorSystem> system = SystemOn(dir.path());
    EXPECT_EQ(AddFive(*system), 5);
    system->Terminate().wait();
  }
  std::unique_ptr<actor::ActorSystem> system = SystemOn(dir.path());
  EXPECT_EQ(AddFive(*system), 10);  // 5 recovered from the journal, plus 5
  system->Terminate().wait();
}

}  // namespace
