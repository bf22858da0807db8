#include "examples/store_failure/histogram.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "absl/strings/str_format.h"

namespace cairn::examples::store_failure {

std::string Histogram(const std::vector<absl::Duration>& times,
                      absl::Duration width) {
  const int64_t width_ms = absl::ToInt64Milliseconds(width);
  std::map<int64_t, int> buckets;  // by index: time / width
  for (absl::Duration t : times) {
    if (t == absl::InfiniteDuration()) continue;
    ++buckets[absl::ToInt64Milliseconds(t) / width_ms];
  }
  if (buckets.empty()) return "";
  std::string out;
  for (int64_t b = buckets.begin()->first; b <= buckets.rbegin()->first; ++b) {
    const int n = buckets.count(b) ? buckets[b] : 0;
    absl::StrAppendFormat(&out, "  %4d-%4d ms  %s %d\n", b * width_ms,
                          (b + 1) * width_ms - 1, std::string(n, '#'), n);
  }
  return out;
}

}  // namespace cairn::examples::store_failure
