#ifndef CAIRN_BENCH_REMOTE_FAR_SIDE_H_
#define CAIRN_BENCH_REMOTE_FAR_SIDE_H_

// The far side of remote_vs_caf: this same program run again as
// `--serve=cairn` or `--serve=caf` in a process of its own
// (bench/support/child_process.h), so that every message crosses a real
// loopback connection between two processes. It inherits the benchmark's
// CPU affinity (taskset). In the far side, Greet and AwaitEndOfInput
// (child_process.h) say where it listens and wait for the end.

#include <string>
#include <utility>

#include "bench/support/child_process.h"

namespace cairn::bench::remote {

using bench::AwaitEndOfInput;
using bench::Greet;

// Owns the far side's process; used by the benchmark's main thread only.
class FarSide {
 public:
  // Starts `/proc/self/exe --serve=<side>` and waits up to 30 s for its
  // greeting, which says how to reach it. Dies if it cannot be started or
  // does not say.
  static FarSide Start(const std::string& side);

  FarSide(FarSide&& other) noexcept = default;
  FarSide& operator=(FarSide&&) = delete;
  // Closes its stdin, which ends it, and waits up to 30 s for it to exit,
  // then kills it; says so on stderr if it ended badly.
  ~FarSide();

  // Its first line: cairn's system address, or CAF's ports.
  const std::string& greeting() const { return child_.greeting(); }

 private:
  explicit FarSide(ChildProcess child) : child_(std::move(child)) {}

  ChildProcess child_;
};

}  // namespace cairn::bench::remote

#endif  // CAIRN_BENCH_REMOTE_FAR_SIDE_H_
