#include "examples/bank/some_subset.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace cairn::examples::bank::testing {

bool SomeSubset(const std::vector<int64_t>& amounts, int64_t count, int64_t sum,
                std::size_t max_amounts) {
  if (amounts.size() > std::min<std::size_t>(max_amounts, 24)) {
    ADD_FAILURE() << amounts.size()
                  << " deposits of unsure outcome to one account, more than "
                     "the test expects ("
                  << max_amounts << ")";
    return false;
  }
  if (count < 0 || count > static_cast<int64_t>(amounts.size())) return false;
  for (uint64_t mask = 0; mask < (uint64_t{1} << amounts.size()); ++mask) {
    int64_t n = 0;
    int64_t total = 0;
    for (size_t i = 0; i < amounts.size(); ++i) {
      if (mask & (uint64_t{1} << i)) {
        ++n;
        total += amounts[i];
      }
    }
    if (n == count && total == sum) return true;
  }
  return false;
}

}  // namespace cairn::examples::bank::testing
