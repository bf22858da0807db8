#ifndef CAIRN_EXAMPLES_BANK_SOME_SUBSET_H_
#define CAIRN_EXAMPLES_BANK_SOME_SUBSET_H_

// For the tests that cut a bank's store or processes mid-load: what the
// deposits of unsure outcome (failed, or never answered) may have left in
// an account.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cairn::examples::bank::testing {

// Whether some subset of `amounts` has `count` members summing to `sum`.
// Tries every subset, so the test states how many amounts it expects at
// most (`max_amounts`, 24 at the very most): past that, the test fails
// (gtest's ADD_FAILURE, naming the count) and this returns false.
bool SomeSubset(const std::vector<int64_t>& amounts, int64_t count, int64_t sum,
                std::size_t max_amounts);

}  // namespace cairn::examples::bank::testing

#endif  // CAIRN_EXAMPLES_BANK_SOME_SUBSET_H_
