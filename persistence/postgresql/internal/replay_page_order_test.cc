// The journal delivers a round's replay rows by replay, then by sequence
// number, whatever order the server returns them in (its statement asks
// for none).
#include "persistence/postgresql/internal/replay_page_order.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "persistence/postgresql/internal/pg_connection.h"
#include "persistence/postgresql/testing/test_database.h"

namespace cairn::persistence::internal {
namespace {

using testing::TestDatabase;

// Rows (replay, sequence number, payload) as the server returns them for
// `values` (those for which `where` holds), in their order.
absl::StatusOr<PgResult> Page(const TestDatabase& db, const char* values,
                              const char* where = "true") {
  PgConnectionSettings settings;
  settings.conninfo = db.url();
  absl::StatusOr<std::unique_ptr<PgConnection>> connection =
      PgConnection::Connect(settings);
  if (!connection.ok()) return connection.status();
  return (*connection)
      ->Execute(absl::StrCat("SELECT i::bigint, s::bigint, p FROM (VALUES ",
                             values, ") AS v(i, s, p) WHERE ", where));
}

TEST(ReplayPageOrderTest, RowsInOrderStayAsTheyAre) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  absl::StatusOr<PgResult> page =
      Page(db, "(1, 4, 'a'), (1, 5, 'b'), (2, 1, 'c'), (3, 7, 'd')");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(ReplayPageOrder(*page), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ReplayPageOrderTest, RowsOutOfOrderAreDeliveredByReplayThenSequenceNr) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  // Replays interleaved, and a replay's events backwards.
  absl::StatusOr<PgResult> page = Page(
      db, "(2, 9, 'a'), (1, 3, 'b'), (1, 2, 'c'), (2, 8, 'd'), (1, 4, 'e')");
  ASSERT_TRUE(page.ok()) << page.status();
  const std::vector<int> order = ReplayPageOrder(*page);
  ASSERT_EQ(order, (std::vector<int>{2, 1, 4, 3, 0}));
  std::string payloads;
  for (int row : order) payloads += page->Bytes(row, 2);
  EXPECT_EQ(payloads, "cbeda");
}

TEST(ReplayPageOrderTest, AnEmptyPageHasNoRows) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  absl::StatusOr<PgResult> page = Page(db, "(1, 1, 'a')", "false");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(ReplayPageOrder(*page).empty());
}

}  // namespace
}  // namespace cairn::persistence::internal
