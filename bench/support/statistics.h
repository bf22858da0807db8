#ifndef CAIRN_BENCH_SUPPORT_STATISTICS_H_
#define CAIRN_BENCH_SUPPORT_STATISTICS_H_

// Percentiles of samples and the median of repeated runs, as every
// benchmark reports them. Header-only, no state.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace cairn::bench {

// The sample at index floor(p * (n - 1)) of `sorted` (ascending, n
// samples; p from 0 to 1): no interpolation, so with few samples a high
// percentile is the largest sample below it. 0 for no samples.
inline double PercentileOfSorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto at = static_cast<std::size_t>(p * (sorted.size() - 1));
  return sorted[at];
}

// What several runs of one measurement gave: the median stands for them,
// the least and the most say how far apart they were.
struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
};

// The spread of `runs` (any order); all 0 for none. An even count's median
// is the mean of the middle two.
inline Spread SpreadOf(std::vector<double> runs) {
  if (runs.empty()) return {};
  std::sort(runs.begin(), runs.end());
  const std::size_t n = runs.size();
  const double median =
      n % 2 == 1 ? runs[n / 2] : (runs[n / 2 - 1] + runs[n / 2]) / 2;
  return {median, runs.front(), runs.back()};
}

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_STATISTICS_H_
