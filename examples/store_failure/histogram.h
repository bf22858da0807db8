#ifndef CAIRN_EXAMPLES_STORE_FAILURE_HISTOGRAM_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_HISTOGRAM_H_

#include <string>
#include <vector>

#include "absl/time/time.h"

namespace cairn::examples::store_failure {

// `times` as a text histogram, one line per bucket of `width` from the
// bucket of the earliest to that of the latest (empty buckets included),
// each with a '#' per time and the count:
//
//   "  400-424 ms  ######## 8\n"
//
// Infinite times are left out. Empty if there is no finite time.
// `width` must be at least 1 ms.
std::string Histogram(const std::vector<absl::Duration>& times,
                      absl::Duration width);

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_HISTOGRAM_H_
