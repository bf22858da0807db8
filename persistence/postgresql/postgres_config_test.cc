// The PostgreSQL plugins' settings from config: reference.conf's defaults,
// an application's values, and the errors of bad ones, naming the key.

#include "persistence/postgresql/postgres_config.h"

#include <string>
#include <string_view>

#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::persistence {
namespace {

using ::testing::HasSubstr;

constexpr char kBlock[] = "akka.persistence.journal.postgresql";

// `text` over the reference.conf files linked in (this package's).
absl::StatusOr<PostgresOptions> Options(std::string_view text) {
  absl::StatusOr<hocon::Config> app = hocon::Config::ParseString(text, "app");
  if (!app.ok()) return app.status();
  absl::StatusOr<hocon::Config> config = hocon::Config::Load(*app);
  if (!config.ok()) return config.status();
  return PostgresOptionsFromConfig(*config, kBlock);
}

TEST(PostgresOptionsFromConfig, ReadsTheReferenceDefaults) {
  absl::StatusOr<PostgresOptions> options = Options("");
  ASSERT_OK(options);
  const PostgresOptions defaults;
  EXPECT_EQ(options->connection_string, "");
  EXPECT_EQ(options->schema, defaults.schema);
  EXPECT_EQ(options->reader_connections, defaults.reader_connections);
  EXPECT_EQ(options->connect_timeout, defaults.connect_timeout);
  EXPECT_EQ(options->call_timeout, defaults.call_timeout);
  EXPECT_EQ(options->reconnect_min_backoff, defaults.reconnect_min_backoff);
  EXPECT_EQ(options->reconnect_max_backoff, defaults.reconnect_max_backoff);
  EXPECT_EQ(options->refresh_interval, defaults.refresh_interval);
  EXPECT_EQ(options->live_notify, defaults.live_notify);
  EXPECT_TRUE(options->live_notify);
}

TEST(PostgresOptionsFromConfig, ReadsEveryKey) {
  absl::StatusOr<PostgresOptions> options = Options(R"(
    akka.persistence.journal.postgresql {
      connection-string = "postgresql://cairn@db:5432/events"
      password-env = "PGPASS_VAR"
      password-file = "/run/secrets/pg"
      schema = "bank"
      reader-connections = 7
      connect-timeout = 2s
      call-timeout = 3s
      reconnect-min-backoff = 50ms
      reconnect-max-backoff = 1m
      refresh-interval = 250ms
      live-notify = off
    })");
  ASSERT_OK(options);
  EXPECT_EQ(options->connection_string, "postgresql://cairn@db:5432/events");
  EXPECT_EQ(options->password_env, "PGPASS_VAR");
  EXPECT_EQ(options->password_file, "/run/secrets/pg");
  EXPECT_EQ(options->schema, "bank");
  EXPECT_EQ(options->reader_connections, 7);
  EXPECT_EQ(options->connect_timeout, absl::Seconds(2));
  EXPECT_EQ(options->call_timeout, absl::Seconds(3));
  EXPECT_EQ(options->reconnect_min_backoff, absl::Milliseconds(50));
  EXPECT_EQ(options->reconnect_max_backoff, absl::Minutes(1));
  EXPECT_EQ(options->refresh_interval, absl::Milliseconds(250));
  EXPECT_FALSE(options->live_notify);
}

TEST(PostgresOptionsFromConfig, NamesTheKeyOfABadValue) {
  struct Case {
    const char* text;
    const char* key;
  };
  for (const Case& c : {
           Case{"reader-connections = 0", "reader-connections"},
           Case{"reader-connections = many", "reader-connections"},
           Case{"call-timeout = -1s", "call-timeout"},
           Case{"connect-timeout = soon", "connect-timeout"},
           Case{"reconnect-min-backoff = 20s", "reconnect-min-backoff"},
           Case{"refresh-interval = -5s", "refresh-interval"},
           Case{"live-notify = sometimes", "live-notify"},
       }) {
    absl::StatusOr<PostgresOptions> options = Options(
        std::string("akka.persistence.journal.postgresql { ") + c.text + " }");
    ASSERT_FALSE(options.ok()) << c.text;
    EXPECT_THAT(std::string(options.status().message()), HasSubstr(c.key))
        << c.text;
  }
}

}  // namespace
}  // namespace cairn::persistence
