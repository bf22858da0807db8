// PgConnectionPool: connections reused; a lost one drops the idle ones too
// (against a real server, skipped without one); after a failed connection
// attempt, calls fail at once until the backoff has passed, doubling per
// failure (a clock the test moves, no server needed).

#include "persistence/postgresql/internal/postgres_connection_pool.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::persistence::postgres_internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNobodyListens[] = "postgresql://postgres@127.0.0.1:1/postgres";

TEST(PgConnectionPoolTest, WaitsOutTheBackoffAfterAFailedAttempt) {
  absl::Time now = absl::UnixEpoch();
  int attempts = 0;
  PgConnectionSettings settings;
  settings.conninfo = kNobodyListens;
  PgConnectionPool pool(
      settings,
      [&attempts](PgConnection&) {
        ++attempts;
        return absl::OkStatus();
      },
      PgReconnectBackoff{absl::Seconds(1), absl::Seconds(3)},
      [&now] { return now; });
  auto message = [](const absl::StatusOr<std::unique_ptr<PgConnection>>& r) {
    return std::string(r.status().message());
  };

  absl::StatusOr<std::unique_ptr<PgConnection>> first = pool.Acquire();
  EXPECT_EQ(first.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(message(first), HasSubstr("cannot connect"));
  // Within the backoff: no attempt, the last error named.
  now += absl::Milliseconds(999);
  absl::StatusOr<std::unique_ptr<PgConnection>> waiting = pool.Acquire();
  EXPECT_EQ(waiting.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(message(waiting), HasSubstr("next attempt in"));
  EXPECT_THAT(message(waiting), HasSubstr("cannot connect"));
  // Past it: another attempt, which fails; the backoff doubles to 2 s...
  now += absl::Milliseconds(1);
  EXPECT_THAT(message(pool.Acquire()), Not(HasSubstr("next attempt in")));
  now += absl::Milliseconds(1999);
  EXPECT_THAT(message(pool.Acquire()), HasSubstr("next attempt in"));
  now += absl::Milliseconds(1);
  EXPECT_THAT(message(pool.Acquire()), Not(HasSubstr("next attempt in")));
  // ...and stops at the maximum, 3 s.
  now += absl::Milliseconds(2999);
  EXPECT_THAT(message(pool.Acquire()), HasSubstr("next attempt in"));
  now += absl::Milliseconds(1);
  EXPECT_THAT(message(pool.Acquire()), Not(HasSubstr("next attempt in")));
  EXPECT_EQ(attempts, 0);  // setup runs on made connections only
}

class PgConnectionPoolServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
    db_.emplace(std::move(db));
    settings_.conninfo = db_->url();
    settings_.schema = db_->schema();
    settings_.application_name = absl::StrCat("pool ", db_->schema());
  }

  // Ends the pool's connections, as a server restart would, and waits
  // until they are gone.
  void TerminateConnections() {
    const std::string ours =
        absl::StrCat("application_name = '", settings_.application_name, "'");
    ASSERT_OK(
        db_->Execute(absl::StrCat("SELECT pg_terminate_backend(pid) "
                                  "FROM pg_stat_activity WHERE ",
                                  ours)));
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (true) {
      absl::StatusOr<std::vector<std::vector<std::string>>> left = db_->Query(
          absl::StrCat("SELECT count(*) FROM pg_stat_activity WHERE ", ours));
      ASSERT_OK(left);
      if ((*left)[0][0] == "0") return;
      ASSERT_LT(absl::Now(), deadline) << "connections still there";
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  std::optional<testing::TestDatabase> db_;
  PgConnectionSettings settings_;
};

TEST_F(PgConnectionPoolServerTest, ReusesAConnectionGivenBack) {
  int made = 0;
  PgConnectionPool pool(
      settings_,
      [&made](PgConnection&) {
        ++made;
        return absl::OkStatus();
      },
      PgReconnectBackoff());
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<std::unique_ptr<PgConnection>> c = pool.Acquire();
    ASSERT_OK(c);
    ASSERT_OK((*c)->Execute("SELECT 1"));
    pool.Release(*std::move(c));
  }
  EXPECT_EQ(made, 1);
}

TEST_F(PgConnectionPoolServerTest, ALostConnectionDropsTheIdleOnesToo) {
  PgConnectionPool pool(settings_, nullptr, PgReconnectBackoff());
  absl::StatusOr<std::unique_ptr<PgConnection>> a = pool.Acquire();
  absl::StatusOr<std::unique_ptr<PgConnection>> b = pool.Acquire();
  ASSERT_OK(a);
  ASSERT_OK(b);
  pool.Release(*std::move(a));
  pool.Release(*std::move(b));
  TerminateConnections();
  if (HasFatalFailure()) return;

  absl::StatusOr<std::unique_ptr<PgConnection>> dead = pool.Acquire();
  ASSERT_OK(dead);
  absl::StatusOr<PgResult> lost = (*dead)->Execute("SELECT 1");
  EXPECT_EQ(lost.status().code(), absl::StatusCode::kUnavailable)
      << lost.status();
  EXPECT_TRUE((*dead)->broken());
  pool.Release(*std::move(dead));
  // The other idle connection was dead too: it is gone, and this one is new.
  absl::StatusOr<std::unique_ptr<PgConnection>> fresh = pool.Acquire();
  ASSERT_OK(fresh);
  EXPECT_OK((*fresh)->Execute("SELECT 1"));
}

}  // namespace
}  // namespace cairn::persistence::postgres_internal
