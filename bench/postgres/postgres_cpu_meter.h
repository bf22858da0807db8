#ifndef CAIRN_BENCH_POSTGRES_POSTGRES_CPU_METER_H_
#define CAIRN_BENCH_POSTGRES_POSTGRES_CPU_METER_H_

// The CPU time a timed window of postgres_benchmark takes: this process's,
// and the PostgreSQL server's when it runs on this machine. Divided by the
// events of the window, it says what bounds a row: on N cores no client
// sending the same statements reads faster than N / (the server's CPU per
// event), however little it costs itself.

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>

namespace cairn::bench {

// The server's processes: its postmaster and the postmaster's children
// (one backend per connection, and its background workers).
//
// The pid of the postmaster of the server at `url` if it runs on this
// machine and /proc shows it (the parent of a backend of ours); 0 if not
// (another machine, another PID namespace, or it cannot be connected to).
pid_t LocalPostmaster(const std::string& url);

// CPU seconds between Start and Stop. Thread safety: one thread at a time.
class CpuMeter {
 public:
  // `postmaster`: LocalPostmaster's answer; 0 measures this process alone.
  explicit CpuMeter(pid_t postmaster) : postmaster_(postmaster) {}

  void Start();
  void Stop();

  // This process's CPU seconds (every thread) in the window.
  double process_seconds() const { return process_stop_ - process_start_; }
  // The server's CPU seconds in the window, if it is measured: the time
  // its postmaster and the postmaster's children ran (the kernel's
  // per-task runtime, in nanoseconds), those alive at Stop. A backend that
  // exits within the window is not counted: the windows measured keep
  // their connections open until Stop.
  std::optional<double> server_seconds() const;

 private:
  const pid_t postmaster_;
  double process_start_ = 0;
  double process_stop_ = 0;
  // The runtime of each of the server's processes, by pid.
  std::optional<std::map<pid_t, double>> server_start_;
  std::optional<std::map<pid_t, double>> server_stop_;
};

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_POSTGRES_POSTGRES_CPU_METER_H_
