#ifndef CAIRN_BENCH_REMOTE_FAR_SIDE_H_
#define CAIRN_BENCH_REMOTE_FAR_SIDE_H_

// The far side of remote_vs_caf: this same program run again as
// `--serve=cairn` or `--serve=caf` in a process of its own, so that every
// message crosses a real loopback connection between two processes. It
// inherits the benchmark's CPU affinity (taskset).

#include <sys/types.h>

#include <string>
#include <utility>

namespace cairn::bench::remote {

// Owns the far side's process and the pipe to its stdin; used by the
// benchmark's main thread only. The far side dies with the benchmark
// (PR_SET_PDEATHSIG, sent when the thread that started it ends: the main
// thread, here).
class FarSide {
 public:
  // Starts `/proc/self/exe --serve=<side>` and waits up to 30 s for its
  // first line of output (Greet), which says how to reach it. Dies if it
  // cannot be started or does not say.
  static FarSide Start(const std::string& side);

  FarSide(FarSide&& other) noexcept;
  FarSide& operator=(FarSide&&) = delete;
  // Closes its stdin, which ends it, and waits up to 30 s for it to exit,
  // then kills it.
  ~FarSide();

  // Its first line: cairn's system address, or CAF's ports.
  const std::string& greeting() const { return greeting_; }

 private:
  FarSide(pid_t pid, int in, std::string greeting)
      : pid_(pid), in_(in), greeting_(std::move(greeting)) {}

  pid_t pid_ = -1;
  int in_ = -1;
  std::string greeting_;
};

// In the far side: prints `line` as its first line, then sends the rest
// of its stdout to stderr (the benchmark reads only that line).
void Greet(const std::string& line);

// In the far side: returns when its stdin ends, that is when the benchmark
// is done with it or has died.
void AwaitEndOfInput();

}  // namespace cairn::bench::remote

#endif  // CAIRN_BENCH_REMOTE_FAR_SIDE_H_
