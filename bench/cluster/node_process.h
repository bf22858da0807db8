#ifndef CAIRN_BENCH_CLUSTER_NODE_PROCESS_H_
#define CAIRN_BENCH_CLUSTER_NODE_PROCESS_H_

// The driver's handle on a node (node.h) in a process of its own, started
// as `/proc/self/exe --serve=TYPE` with the cluster's flags
// (bench/support/child_process.h: the node dies with the driver). Used by
// the driver's main thread only.

#include <string>

#include "bench/cluster/member_system.h"
#include "bench/support/child_process.h"

namespace cairn::bench::cluster {

class NodeProcess {
 public:
  // Starts a node hosting `type` and waits up to 60 s for its greeting
  // (its address). Dies if it does not start or does not say.
  NodeProcess(const ClusterOptions& options, const std::string& type);
  // Closes its stdin (it leaves the cluster) and waits up to 60 s for it
  // to exit, then kills it; reaps it if it was killed already. Dies if it
  // ended with another status than 0 (a sanitizer's report, say), unless
  // it was sent SIGKILL.
  ~NodeProcess();
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  // Its actor system's address: akka://bench@127.0.0.1:PORT.
  const std::string& address() const { return child_.greeting(); }

  // Sends it `signal` (SIGKILL, SIGTERM) and returns at once.
  void Signal(int signal);

 private:
  ChildProcess child_;
  bool killed_ = false;
};

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_NODE_PROCESS_H_
