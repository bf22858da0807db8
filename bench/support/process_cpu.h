#ifndef CAIRN_BENCH_SUPPORT_PROCESS_CPU_H_
#define CAIRN_BENCH_SUPPORT_PROCESS_CPU_H_

// The CPU time of the calling process, every thread's, in seconds (the
// kernel's CLOCK_PROCESS_CPUTIME_ID). Header only; thread safe.

#include <time.h>

namespace cairn::bench {

inline double ProcessCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) +
         static_cast<double>(now.tv_nsec) / 1e9;
}

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_PROCESS_CPU_H_
