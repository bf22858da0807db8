#include "bench/support/ratio_table.h"

#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace cairn::bench {

void PrintRatioHeader() {
  std::printf("%-40s %12s %12s %7s %9s %7s\n", "case", "cairn ev/s", "raw ev/s",
              "ratio", "ev/commit", "value B");
}

void PrintRatioRow(const std::string& name, double cairn, double raw,
                   double events_per_commit, double value_bytes, double ratio) {
  const std::string per_commit =
      events_per_commit > 0
          ? absl::StrCat(static_cast<int64_t>(events_per_commit + 0.5))
          : "-";
  std::printf("%-40s %12.0f %12.0f %6.2fx %9s %7.0f\n", name.c_str(), cairn,
              raw, ratio < 0 ? cairn / raw : ratio, per_commit.c_str(),
              value_bytes);
}

}  // namespace cairn::bench
