#ifndef CAIRN_ACTOR_INTERNAL_IDLE_POLICY_H_
#define CAIRN_ACTOR_INTERNAL_IDLE_POLICY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "hocon/config.h"

namespace cairn::actor::internal {

// How a pool worker that ran out of work waits for more before it sleeps
// until woken: a trade between the latency of the next message (waking a
// sleeping thread takes 35-40 us on small VMs) and the CPU the wait takes
// from the threads that make that message (a journal's writer, the
// network). The phases, each bounded by time:
// 1. poll: look for work between CPU pause hints (the thread keeps its
//    core; a reply from another core arrives within a microsecond);
// 2. yield: look for work between sched_yield calls (a thread that shares
//    the core runs meanwhile);
// 3. park: sleep until a producer wakes the worker.
// At most `max_waiters` workers poll or yield at once; the others park
// at once, so that idle workers never outnumber the cores the busy
// threads need.
struct IdlePolicy {
  absl::Duration poll = absl::ZeroDuration();
  absl::Duration yield = absl::ZeroDuration();
  int max_waiters = 1;
};

// The dispatcher section's `idle-policy` (aggressive, moderate, relaxed or
// auto) with its `idle-poll-time` and `idle-yield-time` overrides, for a
// pool of `threads` workers in a process that may run on `usable_cpus`
// CPUs. `path` is the section's, for messages. InvalidArgument, naming
// `path`.key, for an unknown policy, a value that is not a duration or a
// negative time.
absl::StatusOr<IdlePolicy> IdlePolicyFromConfig(const hocon::Config& section,
                                                const std::string& path,
                                                int threads, int usable_cpus);

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_IDLE_POLICY_H_
