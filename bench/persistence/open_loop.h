#ifndef CAIRN_BENCH_PERSISTENCE_OPEN_LOOP_H_
#define CAIRN_BENCH_PERSISTENCE_OPEN_LOOP_H_

// The open loop of persist_latency_benchmark's offered rows, which both
// sides run: one driver thread sends `rounds` rounds, each one event to
// every stream in turn, one every 1 / per_second, on time when it can
// (a late one goes at once, and is stamped when it goes), so that the
// offered rate does not depend on how fast the side answers.
// Header only; an OpenLoop is used by one thread.

#include <chrono>
#include <thread>

namespace cairn::bench {

struct OfferedLoad {
  int streams = 0;
  int warm_up_rounds = 0;  // sent first, not recorded
  int recorded_rounds = 0;
  double per_second = 0;
};

class OpenLoop {
 public:
  using Clock = std::chrono::steady_clock;

  explicit OpenLoop(double per_second)
      : period_(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(1 / per_second))),
        start_(Clock::now()) {}

  // Sleeps until the next send is due; returns the time to stamp it with.
  Clock::time_point AwaitNext() {
    const Clock::time_point due = start_ + sent_++ * period_;
    if (Clock::now() < due) std::this_thread::sleep_until(due);
    return Clock::now();
  }

 private:
  const Clock::duration period_;
  const Clock::time_point start_;
  long long sent_ = 0;
};

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_OPEN_LOOP_H_
