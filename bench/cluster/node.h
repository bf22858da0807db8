#ifndef CAIRN_BENCH_CLUSTER_NODE_H_
#define CAIRN_BENCH_CLUSTER_NODE_H_

// A far process of cluster_sharding (B or C): this same program run with
// --serve=TYPE. It is a cluster member hosting the region of TYPE (the
// entities) and kTargets plain actors /user/echo-<i>, all of them Entity.

#include <string>

#include "bench/cluster/member_system.h"

namespace cairn::bench::cluster {

// The plain actors of every node, and the entities of the throughput rows.
inline constexpr int kTargets = 100;

// The node's main: prints its system's address as its first line of
// stdout, then serves until its system terminates: on SIGTERM
// (coordinated shutdown: its region hands its shards off), or when its
// stdin ends (the same). The exit code.
int ServeNode(const ClusterOptions& options, const std::string& type);

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_NODE_H_
