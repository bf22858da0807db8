#ifndef CAIRN_BENCH_CLUSTER_DIE_H_
#define CAIRN_BENCH_CLUSTER_DIE_H_

// How cluster_sharding fails: a node that does not start, a measurement
// past its deadline, an entity answering from the wrong process. Nobody
// can take such a failure back, so it ends the process with the reason,
// from any thread, without running destructors that would wait for the
// actor system's threads (the nodes die with it: PR_SET_PDEATHSIG).

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cairn::bench::cluster {

[[noreturn]] inline void Die(const std::string& why) {
  std::fprintf(stderr, "cluster_sharding: %s\n", why.c_str());
  std::fflush(nullptr);
  std::_Exit(1);
}

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_DIE_H_
