// PgCommitListener: nothing connects before Ensure; a failed start is
// tried again only once its delay has passed, and never after Stop (no
// server needed, the connections are refused by the test); against a real
// server (skipped without one), a notification on the schema's events
// channel reaches the notifier, and Stop closes the connection for good.

#include "persistence/postgresql/internal/postgres_commit_listener.h"

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/plugin_support/commit_notifier.h"

namespace cairn::persistence::postgres_internal {
namespace {

using plugin_support::CommitNotifier;
using testing::TestDatabase;

const absl::Duration kPatience = absl::Seconds(30);

// Options whose every connection attempt is refused, and counted.
PgListenerOptions Refused(std::shared_ptr<std::atomic<int>> attempts,
                          absl::Duration backoff) {
  PgListenerOptions options;
  options.channel = PgEventsChannel("refused");
  options.backoff.min = backoff;
  options.backoff.max = backoff;
  options.connect = [attempts](const PgConnectionSettings&)
      -> absl::StatusOr<std::unique_ptr<PgConnection>> {
    attempts->fetch_add(1);
    return absl::UnavailableError("refused by the test");
  };
  return options;
}

TEST(PgCommitListener, ConnectsOnlyWhenAskedAndNotAgainBeforeTheDelay) {
  auto attempts = std::make_shared<std::atomic<int>>(0);
  PgCommitListener listener(Refused(attempts, absl::Hours(1)),
                            std::make_shared<CommitNotifier>());
  EXPECT_EQ(attempts->load(), 0);
  listener.Ensure();
  EXPECT_EQ(attempts->load(), 1);
  // An hour's delay: every Ensure until then is free.
  listener.Ensure();
  listener.Ensure();
  EXPECT_EQ(attempts->load(), 1);
}

TEST(PgCommitListener, TriesAgainAfterTheDelayAndNeverAfterStop) {
  auto attempts = std::make_shared<std::atomic<int>>(0);
  PgCommitListener listener(Refused(attempts, absl::Milliseconds(10)),
                            std::make_shared<CommitNotifier>());
  listener.Ensure();
  ASSERT_EQ(attempts->load(), 1);
  const absl::Time deadline = absl::Now() + kPatience;
  while (attempts->load() < 2 && absl::Now() < deadline) {
    listener.Ensure();
    absl::SleepFor(absl::Milliseconds(1));
  }
  ASSERT_EQ(attempts->load(), 2);

  listener.Stop();
  absl::SleepFor(absl::Milliseconds(20));  // past any delay
  listener.Ensure();
  EXPECT_EQ(attempts->load(), 2);
}

// The listener's connections, as pg_stat_activity shows them.
int Connections(TestDatabase& db, const std::string& application_name) {
  absl::StatusOr<std::vector<std::vector<std::string>>> rows =
      db.Query(absl::StrCat(
          "SELECT count(*) FROM pg_stat_activity WHERE application_name = '",
          application_name, "'"));
  EXPECT_OK(rows);
  return rows.ok() ? std::stoi(rows->at(0).at(0)) : -1;
}

TEST(PgCommitListener, TellsTheNotifierOfNotificationsUntilStopped) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  PgListenerOptions options;
  options.settings.conninfo = db.url();
  options.settings.application_name = absl::StrCat("cairn ", db.schema());
  const std::string application_name = options.settings.application_name;
  options.channel = PgEventsChannel(db.schema());
  auto commits = std::make_shared<CommitNotifier>();
  PgCommitListener listener(std::move(options), commits);
  listener.Ensure();  // listening once it returns
  EXPECT_EQ(Connections(db, application_name), 1);

  const uint64_t before = commits->Generation();
  ASSERT_OK(db.Execute(absl::StrCat("SELECT pg_notify('",
                                    PgEventsChannel(db.schema()), "', '')")));
  absl::Time deadline = absl::Now() + kPatience;
  while (commits->Generation() == before && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_GT(commits->Generation(), before);

  // Its connection closes, and an Ensure after Stop makes none.
  listener.Stop();
  listener.Ensure();
  deadline = absl::Now() + kPatience;
  while (Connections(db, application_name) != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(Connections(db, application_name), 0);
}

}  // namespace
}  // namespace cairn::persistence::postgres_internal
