#include "bench/support/stall_probe.h"

#include <algorithm>

#include "bench/support/process_cpu.h"

namespace cairn::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kNap = std::chrono::microseconds(500);
constexpr double kLateMs = 1.0;

}  // namespace

StallProbe::StallProbe()
    : start_(Clock::now()),
      cpu_start_(ProcessCpuSeconds()),
      thread_([this] { Run(); }) {}

StallProbe::~StallProbe() {
  if (thread_.joinable()) Stop();
}

Stalls StallProbe::Stop() {
  if (thread_.joinable()) {
    stop_.store(true, std::memory_order_relaxed);
    thread_.join();
    stalls_.seconds =
        std::chrono::duration<double>(Clock::now() - start_).count();
    stalls_.cpu_seconds = ProcessCpuSeconds() - cpu_start_;
  }
  return stalls_;
}

void StallProbe::Run() {
  while (!stop_.load(std::memory_order_relaxed)) {
    const Clock::time_point before = Clock::now();
    std::this_thread::sleep_for(kNap);
    const double late_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - before - kNap)
            .count();
    if (late_ms > kLateMs) {
      ++stalls_.count;
      stalls_.total_ms += late_ms;
      stalls_.longest_ms = std::max(stalls_.longest_ms, late_ms);
    }
  }
}

}  // namespace cairn::bench
