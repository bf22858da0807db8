#include "persistence/postgresql/internal/replay_page_order.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace cairn::persistence::postgres_internal {

std::vector<int> ReplayPageOrder(const PgResult& page) {
  std::vector<int> order(static_cast<size_t>(page.rows()));
  std::iota(order.begin(), order.end(), 0);
  auto before = [&page](int a, int b) {
    const int64_t replay_a = page.Int64(a, 0);
    const int64_t replay_b = page.Int64(b, 0);
    if (replay_a != replay_b) return replay_a < replay_b;
    return page.Int64(a, 1) < page.Int64(b, 1);
  };
  if (!std::is_sorted(order.begin(), order.end(), before)) {
    std::sort(order.begin(), order.end(), before);
  }
  return order;
}

}  // namespace cairn::persistence::postgres_internal
