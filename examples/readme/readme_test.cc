// The README's example, as a newcomer would run it: the code comes from
// README.md itself (the genrule :readme_example extracts it), so the
// README cannot show code that does not compile or does not work.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "actor/actor_system.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/storage/testing/temp_dir.h"
// After the headers it needs, as in the README.
#include "examples/readme/readme_example.h"

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

TEST(ReadmeExampleTest, TheTotalSurvivesARestartOfTheSystem) {
  ASSERT_OK_AND_ASSIGN(persistence::testing::TempDir dir,
                       persistence::testing::TempDir::Make("readme"));
  {
    std::unique_ptr<actor::ActorSystem> system = SystemOn(dir.path());
    ASSERT_OK(SetUpPersistence(*system));
    EXPECT_EQ(AddFive(*system), 5);
    system->Terminate().wait();
  }
  std::unique_ptr<actor::ActorSystem> system = SystemOn(dir.path());
  ASSERT_OK(SetUpPersistence(*system));
  EXPECT_EQ(AddFive(*system), 10);  // 5 recovered from the journal, plus 5
  system->Terminate().wait();
}

}  // namespace
