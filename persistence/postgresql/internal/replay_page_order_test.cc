// The journal delivers a round's replay rows by replay, then by sequence
// number, whatever order the server returns them in (its statement asks
// for none).
#include "persistence/postgresql/internal/replay_page_order.h"

#include <postgresql/libpq-fe.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "persistence/postgresql/internal/postgres_connection.h"

namespace cairn::persistence::postgres_internal {
namespace {

std::string BigEndian(int64_t value) {
  std::string bytes(8, '\0');
  for (int i = 7; i >= 0; --i) {
    bytes[i] = static_cast<char>(value & 0xff);
    value = static_cast<int64_t>(static_cast<uint64_t>(value) >> 8);
  }
  return bytes;
}

// A result as the server would send it, in binary: rows of (replay,
// sequence number, payload), in the order given.
PgResult Page(
    const std::vector<std::tuple<int64_t, int64_t, std::string>>& rows) {
  PGresult* result = PQmakeEmptyPGresult(nullptr, PGRES_TUPLES_OK);
  char replay[] = "i";
  char sequence_nr[] = "sequence_number";
  char payload[] = "payload";
  PGresAttDesc columns[3] = {};
  columns[0].name = replay;
  columns[1].name = sequence_nr;
  columns[2].name = payload;
  for (PGresAttDesc& column : columns) column.format = 1;  // binary
  EXPECT_NE(PQsetResultAttrs(result, 3, columns), 0);
  for (size_t row = 0; row < rows.size(); ++row) {
    const auto& [i, n, p] = rows[row];
    std::string values[3] = {BigEndian(i), BigEndian(n), p};
    for (int column = 0; column < 3; ++column) {
      EXPECT_NE(PQsetvalue(result, static_cast<int>(row), column,
                           values[column].data(),
                           static_cast<int>(values[column].size())),
                0);
    }
  }
  return PgResult(result);
}

TEST(ReplayPageOrderTest, RowsInOrderStayAsTheyAre) {
  const PgResult page =
      Page({{1, 4, "a"}, {1, 5, "b"}, {2, 1, "c"}, {3, 7, "d"}});
  EXPECT_EQ(ReplayPageOrder(page), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ReplayPageOrderTest, RowsOutOfOrderAreDeliveredByReplayThenSequenceNr) {
  // Replays interleaved, and a replay's events backwards.
  const PgResult page =
      Page({{2, 9, "a"}, {1, 3, "b"}, {1, 2, "c"}, {2, 8, "d"}, {1, 4, "e"}});
  const std::vector<int> order = ReplayPageOrder(page);
  ASSERT_EQ(order, (std::vector<int>{2, 1, 4, 3, 0}));
  std::string payloads;
  for (int row : order) payloads += page.Bytes(row, 2);
  EXPECT_EQ(payloads, "cbeda");
}

TEST(ReplayPageOrderTest, NumbersPastThirtyTwoBitsOrderAsNumbers) {
  const PgResult page = Page({{1, int64_t{1} << 40, "b"}, {1, 255, "a"}});
  EXPECT_EQ(ReplayPageOrder(page), (std::vector<int>{1, 0}));
}

TEST(ReplayPageOrderTest, AnEmptyPageHasNoRows) {
  EXPECT_TRUE(ReplayPageOrder(Page({})).empty());
}

}  // namespace
}  // namespace cairn::persistence::postgres_internal
