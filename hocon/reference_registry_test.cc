#include "hocon/reference_registry.h"

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::hocon {
namespace {

// testdata/test_reference.conf is linked in through the reference_conf()
// macro (//hocon:test_reference_conf), exactly as modules ship theirs.
TEST(ReferenceRegistryTest, TheMacroRegistersTheFile) {
  bool found = false;
  for (const auto& [module, text] : RegisteredReferenceConfs()) {
    if (module == "hocon-test") {
      found = true;
      EXPECT_NE(text.find("greeting = hello"), std::string::npos);
    }
  }
  EXPECT_TRUE(found);
  absl::StatusOr<Config> loaded = Config::Load();
  ASSERT_OK(loaded);
  EXPECT_EQ(*loaded->GetString("hocon-test.greeting"), "hello");
  EXPECT_EQ(*loaded->GetInt("hocon-test.derived"), 42);
  EXPECT_EQ(*loaded->GetDuration("hocon-test.timeout"), absl::Seconds(5));
}

TEST(ReferenceRegistryTest, TheApplicationOverridesAndSubstitutionsSeeIt) {
  Config app = *Config::ParseString("hocon-test.answer = 7");
  absl::StatusOr<Config> loaded = Config::Load(app);
  ASSERT_OK(loaded);
  EXPECT_EQ(*loaded->GetInt("hocon-test.answer"), 7);
  EXPECT_EQ(*loaded->GetInt("hocon-test.derived"), 7);
  EXPECT_EQ(*loaded->GetString("hocon-test.greeting"), "hello");
}

TEST(ReferenceRegistryTest, ModulesMergeInNameOrder) {
  RegisterReferenceConf("zz-second", "shared { a = second, b = second }");
  RegisterReferenceConf("aa-first", "shared { a = first }");
  std::vector<std::string> names;
  for (const auto& [module, text] : RegisteredReferenceConfs()) {
    names.push_back(module);
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  absl::StatusOr<Config> loaded = Config::Load();
  ASSERT_OK(loaded);
  EXPECT_EQ(*loaded->GetString("shared.a"), "first");
  EXPECT_EQ(*loaded->GetString("shared.b"), "second");
  // Registering a module again replaces its text.
  RegisterReferenceConf("aa-first", "shared { a = replaced }");
  EXPECT_EQ(*Config::Load()->GetString("shared.a"), "replaced");
}

}  // namespace
}  // namespace cairn::hocon
