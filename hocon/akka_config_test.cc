// Parses Akka.NET's own configuration files (conformance/hocon/akka: the
// ~1200-line akka.conf, persistence.conf, Remote.conf) and checks values
// across them. Their full resolved JSON was also compared, equal, with the
// reference implementation's (docs/HOCON.md).
#include <string>

#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "hocon/testing/conformance_dir.h"

namespace cairn::hocon {
namespace {

class AkkaConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ConformanceDir();
    if (dir_.empty()) {
      GTEST_SKIP() << "conformance data not found: "
                   << testing::ConformanceDirSearched();
    }
    dir_ += "/hocon/akka/";
  }

  Config Load(const std::string& name) {
    absl::StatusOr<Config> parsed = Config::ParseFile(dir_ + name);
    EXPECT_OK(parsed);
    if (!parsed.ok()) return Config();
    absl::StatusOr<Config> resolved = parsed->Resolve();
    EXPECT_OK(resolved);
    return resolved.ok() ? *resolved : Config();
  }

  std::string dir_;
};

TEST_F(AkkaConfigTest, AkkaConf) {
  Config c = Load("akka.conf");
  EXPECT_EQ(*c.GetString("akka.version"), "0.0.1 Akka");
  EXPECT_EQ(*c.GetString("akka.loglevel"), "INFO");
  EXPECT_EQ(*c.GetInt("akka.actor.default-dispatcher.throughput"), 30);
  EXPECT_EQ(
      *c.GetDuration("akka.actor.default-mailbox.mailbox-push-timeout-time"),
      absl::Seconds(10));
  EXPECT_FALSE(*c.GetBool("akka.actor.debug.lifecycle"));  // "off"
  EXPECT_OK(c.GetConfig("akka.actor.deployment.default"));
  // A substitution across the file.
  // A substitution merged with an object that overrides part of it.
  const std::string pulling =
      "akka.reliable-delivery.work-pulling.producer-controller.";
  EXPECT_EQ(*c.GetInt(pulling + "buffer-size"), 1000);
  EXPECT_FALSE(*c.GetBool(pulling + "chunk-large-messages"));
  EXPECT_EQ(*c.GetDuration(pulling + "durable-queue.resend-first-interval"),
            absl::Seconds(1));
  EXPECT_GT(c.Keys().size(), 0u);
}

TEST_F(AkkaConfigTest, PersistenceConf) {
  Config c = Load("persistence.conf");
  EXPECT_EQ(*c.GetString("akka.persistence.journal.plugin"),
            "akka.persistence.journal.inmem");
  EXPECT_EQ(*c.GetString("akka.persistence.snapshot-store.plugin"),
            "akka.persistence.snapshot-store.local");
}

TEST_F(AkkaConfigTest, RemoteConf) {
  Config c = Load("Remote.conf");
  EXPECT_EQ(*c.GetInt("akka.remote.dot-netty.tcp.port"), 2552);
  // dot-netty.udp = ${akka.remote.dot-netty.tcp}
  EXPECT_EQ(*c.GetInt("akka.remote.dot-netty.udp.port"), 2552);
}

TEST_F(AkkaConfigTest, AllThreeMergeAsReferenceConfs) {
  absl::StatusOr<Config> akka = Config::ParseFile(dir_ + "akka.conf");
  absl::StatusOr<Config> persistence =
      Config::ParseFile(dir_ + "persistence.conf");
  absl::StatusOr<Config> remote = Config::ParseFile(dir_ + "Remote.conf");
  ASSERT_OK(akka);
  ASSERT_OK(persistence);
  ASSERT_OK(remote);
  Config app = *Config::ParseString(
      "akka.actor.default-dispatcher.throughput = 100\n"
      "akka.remote.dot-netty.tcp.port = 0");
  absl::StatusOr<Config> merged = app.WithFallback(*akka)
                                      .WithFallback(*persistence)
                                      .WithFallback(*remote)
                                      .Resolve();
  ASSERT_OK(merged);
  EXPECT_EQ(*merged->GetInt("akka.actor.default-dispatcher.throughput"), 100);
  // The application's override is seen through the substitution.
  EXPECT_EQ(*merged->GetInt("akka.remote.dot-netty.udp.port"), 0);
  EXPECT_EQ(*merged->GetString("akka.persistence.journal.plugin"),
            "akka.persistence.journal.inmem");
}

}  // namespace
}  // namespace cairn::hocon
