#ifndef CAIRN_BENCH_SUPPORT_CHILD_PROCESS_H_
#define CAIRN_BENCH_SUPPORT_CHILD_PROCESS_H_

// This benchmark run again in a process of its own (`/proc/self/exe` with
// other flags: a far side, a cluster node), so that messages cross real
// connections between processes. The child says how to reach it in its
// first line of output (a greeting) and ends when its stdin closes; it
// dies with the benchmark (PR_SET_PDEATHSIG, sent when the thread that
// started it ends: start it from the main thread). Used by one thread.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cairn::bench {

class ChildProcess {
 public:
  // Starts `/proc/self/exe` with `args` (argv[0] first) and waits up to
  // `timeout` for its first line. FailedPrecondition when it cannot be
  // started; DeadlineExceeded when it ends or stays silent first.
  static absl::StatusOr<ChildProcess> Start(std::vector<std::string> args,
                                            absl::Duration timeout);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  // Finish()es it if not done yet.
  ~ChildProcess();

  const std::string& greeting() const { return greeting_; }
  // Started and not yet Finish()ed (false once moved from).
  bool running() const { return pid_ > 0; }
  // Sends it `signal`; false if that fails.
  bool Signal(int signal);
  // Closes its stdin (which ends it) and waits up to `timeout` for it to
  // exit: its wait status, or nullopt if it had to be killed. Once only;
  // later calls return nullopt.
  std::optional<int> Finish(absl::Duration timeout);

 private:
  ChildProcess(pid_t pid, int in) : pid_(pid), in_(in) {}

  pid_t pid_ = -1;
  int in_ = -1;
  std::string greeting_;
};

// In the child: prints `line` as its first line, then sends the rest of
// its stdout to stderr (the parent reads only that line).
void Greet(const std::string& line);

// In the child: returns when its stdin ends, that is when the parent is
// done with it or has died.
void AwaitEndOfInput();

}  // namespace cairn::bench

#endif  // CAIRN_BENCH_SUPPORT_CHILD_PROCESS_H_
