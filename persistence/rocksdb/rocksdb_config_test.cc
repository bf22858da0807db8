// The RocksDB plugins' settings from config: this package's reference.conf
// defaults, an application's values, and the errors of bad ones, naming
// the key.

#include "persistence/rocksdb/rocksdb_config.h"

#include <string>
#include <string_view>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::persistence {
namespace {

using ::testing::HasSubstr;

constexpr char kBlock[] = "akka.persistence.journal.rocksdb";

// `text` over the reference.conf files linked in (this package's).
absl::StatusOr<RocksDbOptions> Options(std::string_view text) {
  absl::StatusOr<hocon::Config> app = hocon::Config::ParseString(text, "app");
  if (!app.ok()) return app.status();
  absl::StatusOr<hocon::Config> config = hocon::Config::Load(*app);
  if (!config.ok()) return config.status();
  return RocksDbOptionsFromConfig(*config, kBlock);
}

TEST(RocksDbOptionsFromConfig, ReadsTheReferenceDefaults) {
  absl::StatusOr<RocksDbOptions> options = Options("");
  ASSERT_OK(options);
  const RocksDbOptions defaults;
  EXPECT_EQ(options->path, "journal");
  EXPECT_EQ(options->fsync, defaults.fsync);
  EXPECT_EQ(options->create_if_missing, defaults.create_if_missing);
  EXPECT_EQ(options->reader_threads, defaults.reader_threads);
  EXPECT_EQ(options->mode, RocksDbMode::kReadWrite);
  EXPECT_EQ(options->secondary_path, "");
  EXPECT_EQ(options->catch_up_interval, defaults.catch_up_interval);
}

TEST(RocksDbOptionsFromConfig, ReadsEveryKey) {
  absl::StatusOr<RocksDbOptions> options = Options(R"(
    akka.persistence.journal.rocksdb {
      dir = "/var/lib/bank/journal"
      fsync = off
      create-if-missing = off
      reader-threads = 5
      mode = "secondary"
      secondary-dir = "/tmp/follower"
      catch-up-interval = 250ms
    })");
  ASSERT_OK(options);
  EXPECT_EQ(options->path, "/var/lib/bank/journal");
  EXPECT_FALSE(options->fsync);
  EXPECT_FALSE(options->create_if_missing);
  EXPECT_EQ(options->reader_threads, 5);
  EXPECT_EQ(options->mode, RocksDbMode::kSecondary);
  EXPECT_EQ(options->secondary_path, "/tmp/follower");
  EXPECT_EQ(options->catch_up_interval, std::chrono::milliseconds(250));
}

TEST(RocksDbOptionsFromConfig, ReadsTheOtherModes) {
  absl::StatusOr<RocksDbOptions> options =
      Options(R"(akka.persistence.journal.rocksdb.mode = "read-only")");
  ASSERT_OK(options);
  EXPECT_EQ(options->mode, RocksDbMode::kReadOnly);
}

TEST(RocksDbOptionsFromConfig, NamesTheKeyOfABadValue) {
  struct Case {
    const char* text;
    const char* key;
  };
  for (const Case& c : {
           Case{"mode = writer", "mode"},
           Case{"reader-threads = 0", "reader-threads"},
           Case{"reader-threads = many", "reader-threads"},
           Case{"fsync = maybe", "fsync"},
           Case{"catch-up-interval = -1s", "catch-up-interval"},
           Case{"catch-up-interval = soon", "catch-up-interval"},
           Case{"dir = {}", "dir"},
       }) {
    absl::StatusOr<RocksDbOptions> options = Options(
        std::string("akka.persistence.journal.rocksdb { ") + c.text + " }");
    ASSERT_FALSE(options.ok()) << c.text;
    EXPECT_THAT(std::string(options.status().message()), HasSubstr(c.key))
        << c.text;
  }
}

}  // namespace
}  // namespace cairn::persistence
