#ifndef CAIRN_BENCH_REMOTE_SIDE_H_
#define CAIRN_BENCH_REMOTE_SIDE_H_

// A side of remote_vs_caf (cairn's, CAF's): this process's actor system,
// connected to the same runtime's far side in a process of its own, and
// what both sides share: what a pattern returns, its deadline, the threads
// a runtime gets, and how the benchmark fails.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "base/mutex.h"

namespace cairn::bench::remote {

// A failure of the benchmark itself (the far side gone, a pattern past its
// deadline, a message lost): nobody can take it back, so it ends the
// process with the reason, from any thread, without running destructors
// that would wait for the runtimes' threads.
[[noreturn]] inline void Die(const std::string& why) {
  std::fprintf(stderr, "remote_vs_caf: %s\n", why.c_str());
  std::fflush(nullptr);
  std::_Exit(1);
}

// What one pattern gave on one side in one run.
struct Measurement {
  // Messages per second (a round trip is two).
  double rate = 0;
  // Round-trip times in microseconds, sorted; empty for one-way.
  std::vector<double> round_trip_us;
};

// How long a pattern may take before the benchmark gives up on it.
inline constexpr absl::Duration kPatternDeadline = absl::Minutes(5);

// Set once by a pattern's actor when it is done; the benchmark's thread
// waits for it and then reads the Measurement the actor filled. A
// base::Mutex rather than std::promise: TSan sees its hand-off, and not
// a future's wait, which is in libstdc++, uninstrumented.
class Done {
 public:
  void Set() {
    base::MutexLock lock(&mu_);
    done_ = true;
    cv_.SignalAll();
  }

  // Returns once Set; Dies past kPatternDeadline, naming `what`.
  void Await(const std::string& what) {
    const absl::Time deadline = absl::Now() + kPatternDeadline;
    base::MutexLock lock(&mu_);
    while (!done_) {
      if (cv_.WaitWithDeadline(&mu_, deadline) && !done_) {
        Die(what + " did not finish in " +
            std::to_string(absl::ToInt64Minutes(kPatternDeadline)) +
            " minutes");
      }
    }
  }

 private:
  base::Mutex mu_;
  base::CondVar cv_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
};

inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Owned by the benchmark's main thread, which alone calls it; one pattern
// at a time. A failure Dies.
class Side {
 public:
  virtual ~Side() = default;
  // `round_trips` (>= in_flight) balls bounced off the far side's echo
  // with `in_flight` of them out at a time.
  virtual Measurement PingPong(int64_t round_trips, int in_flight) = 0;
  // `messages` (>= 1) sent to the far side's sink in batches (kBatch,
  // kWindowBatches), timed until the last batch is answered; Dies if the
  // sink's count of received messages falls short.
  virtual Measurement OneWay(int64_t messages) = 0;
};

}  // namespace cairn::bench::remote

#endif  // CAIRN_BENCH_REMOTE_SIDE_H_
