#ifndef CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_SUPPORT_H_
#define CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_SUPPORT_H_

// What both sides of persistence_benchmark share: a clock (which also
// counts allocations and CPU time), and the names
// and key layout of the streams they write.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "bench/support/allocation_counter.h"
#include "bench/support/process_cpu.h"

namespace cairn::bench {

// Wall-clock seconds since construction, and the allocations every thread
// made meanwhile (bench/support/allocation_counter.h; 0 when not counted)
// and the CPU time every thread of the process spent.
class Stopwatch {
 public:
  Stopwatch()
      : start_(std::chrono::steady_clock::now()),
        allocations_at_start_(AllocationsSoFar()),
        cpu_at_start_(ProcessCpuSeconds()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }
  uint64_t Allocations() const {
    return AllocationsSoFar() - allocations_at_start_;
  }
  double CpuSeconds() const { return ProcessCpuSeconds() - cpu_at_start_; }

 private:
  std::chrono::steady_clock::time_point start_;
  uint64_t allocations_at_start_;
  double cpu_at_start_;
};

// What a side's timed part cost per event, every thread of the process
// counted: the work it did, whatever the wall clock says. A side that
// waits for a wake-up costs wall time but no CPU, so the CPU ratio of two
// sides moves less from run to run than their rates do (issue 35).
struct SideCost {
  double allocations = -1;  // per event; -1: not measured
  double cpu_us = -1;       // CPU microseconds per event; -1: not measured

  // From a clock that timed `events` events.
  static SideCost Of(const Stopwatch& clock, double events) {
    return {static_cast<double>(clock.Allocations()) / events,
            clock.CpuSeconds() * 1e6 / events};
  }
};

// Run as a side's clock starts and as it stops (before anything is shut
// down), e.g. to measure the CPU time of the same window.
struct ClockHooks {
  std::function<void()> started;
  std::function<void()> stopped;
};

// The persistence id of the benchmark's actor number `index`.
std::string BenchPersistenceId(int64_t index);

// The prefix of every key of a stream in cairn's `events` column family: a
// 4-byte big-endian length, then the id; the 8-byte big-endian sequence
// number follows (docs/PERSISTENCE_STORAGE.md). Written out here because
// persistence/rocksdb/internal/key_codec.h is private to
// //persistence/rocksdb.
std::string StreamPrefix(std::string_view persistence_id);

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_PERSISTENCE_BENCHMARK_SUPPORT_H_
