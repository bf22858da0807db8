#ifndef CAIRN_BENCH_SUPPORT_BENCH_MAIN_H_
#define CAIRN_BENCH_SUPPORT_BENCH_MAIN_H_

// What every benchmark's main shares, so that none parses its command line
// by hand: Abseil's flags (a benchmark defines its own with ABSL_FLAG in its
// .cc; --help lists them), the --quick flag defined once here, and a
// line-buffered stdout, so that each row reaches a pipe (bench/report.sh) as
// it is printed.

#include <string_view>

#include "absl/flags/declare.h"

// Small counts: a smoke run that checks the benchmark works (its smoke
// test, bench/support/smoke_test.bzl, and `bench/report.sh --quick` run
// it), not figures.
ABSL_DECLARE_FLAG(bool, quick);

namespace cairn::bench {

// Call first in main, once, before any thread starts (not thread-safe).
// Parses argv; `usage` is the line --help prints above the flags. An unknown
// flag or a bad value exits 1 with Abseil's message; a positional argument
// exits 2 with the usage line.
void InitBenchmark(int argc, char** argv, std::string_view usage);

// The value of --quick.
bool Quick();

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_BENCH_MAIN_H_
