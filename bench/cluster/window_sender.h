#ifndef CAIRN_BENCH_CLUSTER_WINDOW_SENDER_H_
#define CAIRN_BENCH_CLUSTER_WINDOW_SENDER_H_

// The throughput rows' sender: an actor in the driver that keeps `window`
// messages unacknowledged, each acknowledged by the far actor it reached.

#include <cstdint>
#include <functional>
#include <string>

#include "actor/actor_system.h"
#include "bench/cluster/cluster_bench.pb.h"

namespace cairn::bench::cluster {

// Every message carries this many bytes of payload.
inline constexpr int kPayloadBytes = 100;

// Sends message `i` (an index from 0) on its way; called by the sender
// actor in its handler, so the message's sender is that actor.
using Route = std::function<void(int64_t i, const Work& work)>;

// Sends `messages` (>= 1) Works through `route`, at most `window` of them
// unacknowledged, and returns the messages per second until the last Ack.
// Dies if an Ack comes from another process than `host`, or if the Acks
// are not all there within 5 minutes (a message lost).
double MeasureRate(actor::ActorSystem& system, Route route, int64_t messages,
                   int window, const std::string& host);

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_WINDOW_SENDER_H_
