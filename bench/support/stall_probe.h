#ifndef CAIRN_BENCH_SUPPORT_STALL_PROBE_H_
#define CAIRN_BENCH_SUPPORT_STALL_PROBE_H_

// How long the process stood still while it was measured, as a sleeping
// thread sees it: the thread naps 0.5 ms at a time and counts each wake-up
// that comes over 1 ms late. A VM whose host deschedules it (CPU quota,
// the host's own I/O work) stops every thread at once; on the 2-vCPU VMs
// the benchmarks run on, fsync-heavy load is stopped for 6-14 ms about
// every 100 ms (docs/BENCHMARKS.md, "Persist latency"), which sets any
// p99 taken there. The probe cannot tell such a pause from its own wait
// for a busy core; it costs ~2000 wake-ups a second and little else. It
// also reads the process's CPU time over the same span, to set beside the
// pauses.
//
// Not thread safe: start and stop it from one thread.

#include <atomic>
#include <chrono>
#include <thread>

namespace cairn::bench {

struct Stalls {
  int count = 0;           // wake-ups over 1 ms late
  double total_ms = 0;     // their lateness, summed
  double longest_ms = 0;   // the latest one's
  double seconds = 0;      // how long the probe ran
  double cpu_seconds = 0;  // the process's CPU time meanwhile (all threads)
};

class StallProbe {
 public:
  StallProbe();   // starts the probe's thread
  ~StallProbe();  // stops it, if Stop was not called
  StallProbe(const StallProbe&) = delete;
  StallProbe& operator=(const StallProbe&) = delete;

  // Stops the thread (once) and returns what it saw.
  Stalls Stop();

 private:
  void Run();

  const std::chrono::steady_clock::time_point start_;
  const double cpu_start_;
  std::atomic<bool> stop_{false};
  Stalls stalls_;  // the thread's until joined
  std::thread thread_;
};

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_STALL_PROBE_H_
