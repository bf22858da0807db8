#ifndef CAIRN_BENCH_CLUSTER_PROBER_H_
#define CAIRN_BENCH_CLUSTER_PROBER_H_

// The takeover and hand-off rows' prober: an actor in the driver that
// keeps probing entities through a proxy and notes when each first
// answers from the process it moved to.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/props.h"
#include "bench/cluster/latch.h"

namespace cairn::bench::cluster {

// Every kProbeTick, each entity that has not yet answered from its new
// home and has no probe in flight gets one; a probe unanswered for
// kProbeResend is taken as lost (sent to the process that died) and sent
// again. The tick is the measurement's resolution.
inline constexpr absl::Duration kProbeTick = absl::Milliseconds(50);
inline constexpr absl::Duration kProbeResend = absl::Milliseconds(500);

// Told to the prober (a local message) once the entities' next home runs.
struct NewHome {
  std::string host;  // its system's address
};

// What a prober reports; read by the driver's thread after the latch.
// Shared with the prober, which may still run a moment after it is told
// to stop.
struct ProbeRun {
  // Set when every entity has answered, each from `home`.
  Latch warm;
  // Set when every entity has answered from NewHome's host.
  Latch moved;
  // Per entity, the steady clock (ns) of its first answer from there.
  std::vector<int64_t> moved_at_ns;
};

// Probes EntityId(0..entities-1) through `region`. Dies if one answers
// from another process than `home` before NewHome, or from a third one.
actor::Props ProberProps(actor::ActorRef region, int entities, std::string home,
                         std::shared_ptr<ProbeRun> run);

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_PROBER_H_
