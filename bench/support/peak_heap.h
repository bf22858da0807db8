#ifndef CAIRN_BENCH_SUPPORT_PEAK_HEAP_H_
#define CAIRN_BENCH_SUPPORT_PEAK_HEAP_H_

// The peak of the heap in use (heap_in_use.h), sampled while a row runs:
// what the memory rows of the benchmarks print.

#include <atomic>
#include <chrono>
#include <thread>

#include "bench/support/heap_in_use.h"

namespace cairn::bench {

// The highest HeapInUse while it lives, sampled every millisecond on a
// thread of its own.
class PeakHeap {
 public:
  PeakHeap() : peak_(HeapInUse()) {
    sampler_ = std::thread([this] {
      while (!stop_.load()) {
        long now = HeapInUse();
        long seen = peak_.load();
        while (now > seen && !peak_.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  ~PeakHeap() { Stop(); }
  PeakHeap(const PeakHeap&) = delete;
  PeakHeap& operator=(const PeakHeap&) = delete;

  // Stops sampling; the peak seen.
  long Stop() {
    if (sampler_.joinable()) {
      stop_ = true;
      sampler_.join();
    }
    return peak_.load();
  }

 private:
  std::atomic<long> peak_;
  std::atomic<bool> stop_{false};
  std::thread sampler_;
};

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_PEAK_HEAP_H_
