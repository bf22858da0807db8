#ifndef CAIRN_BENCH_PERSISTENCE_OPEN_LOOP_H_
#define CAIRN_BENCH_PERSISTENCE_OPEN_LOOP_H_

// The open loop of persist_latency_benchmark's offered rows, which both
// sides run: the calling thread sends rounds of one event to every stream
// in turn, one every 1 / per_second, on time when it can (a late one goes
// at once, and is stamped when it goes), so that the offered rate does not
// depend on how fast the side answers. Header only.

#include <chrono>
#include <cstdint>
#include <thread>

namespace cairn::bench {

struct OfferedLoad {
  int streams = 0;
  int warm_up_rounds = 0;  // sent first, not recorded
  int recorded_rounds = 0;
  double per_second = 0;
};

// Runs `load` on this thread: `send(stream, round, stamp)` for every stream
// of every round, each when it is due, `stamp` the steady clock as it goes;
// `at_recorded()` as the first recorded round begins.
template <typename AtRecorded, typename Send>
void DriveOpenLoop(const OfferedLoad& load, AtRecorded at_recorded, Send send) {
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1 / load.per_second));
  const Clock::time_point start = Clock::now();
  int64_t sent = 0;
  for (int round = 0; round < load.warm_up_rounds + load.recorded_rounds;
       ++round) {
    if (round == load.warm_up_rounds) at_recorded();
    for (int stream = 0; stream < load.streams; ++stream) {
      const Clock::time_point due = start + sent++ * period;
      if (Clock::now() < due) std::this_thread::sleep_until(due);
      send(stream, round, Clock::now());
    }
  }
}

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_PERSISTENCE_OPEN_LOOP_H_
