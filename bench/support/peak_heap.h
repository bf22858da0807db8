#ifndef CAIRN_BENCH_SUPPORT_PEAK_HEAP_H_
#define CAIRN_BENCH_SUPPORT_PEAK_HEAP_H_

// Heap in use (glibc's mallinfo2), and its peak sampled while a row runs:
// what the memory rows of the benchmarks print.

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace cairn::bench {

inline long HeapInUse() { return static_cast<long>(mallinfo2().uordblks); }

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
