#ifndef CAIRN_BENCH_SUPPORT_RATIO_TABLE_H_
#define CAIRN_BENCH_SUPPORT_RATIO_TABLE_H_

// The table persistence_benchmark and postgres_benchmark print: a case, both
// rates, their ratio, cairn's events per commit and the stored value size.
// bench/report.sh and tools/bench_chart.sh parse these rows: change the
// format only with them.

#include <string>

namespace cairn::bench {

// The column names.
void PrintRatioHeader();

// One row. `events_per_commit` 0: not a write row ("-"). `ratio`: the
// row's cairn/raw, if not cairn / raw (negative): a median of runs'.
void PrintRatioRow(const std::string& name, double cairn, double raw,
                   double events_per_commit, double value_bytes,
                   double ratio = -1);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_RATIO_TABLE_H_
