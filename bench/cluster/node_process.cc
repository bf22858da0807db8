#include "bench/cluster/node_process.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "bench/cluster/die.h"

namespace cairn::bench::cluster {
namespace {

constexpr absl::Duration kDeadline = absl::Seconds(60);

ChildProcess StartNode(const ClusterOptions& options, const std::string& type) {
  absl::StatusOr<ChildProcess> child = ChildProcess::Start(
      {"cluster_sharding", "--serve=" + type,
       "--postgres=" + options.postgres_url, "--schema=" + options.schema,
       absl::StrCat("--lease_ttl_seconds=",
                    absl::ToInt64Seconds(options.lease_ttl))},
      kDeadline);
  if (!child.ok()) {
    Die("the node of " + type + " did not say where it listens: " +
        std::string(child.status().message()));
  }
  return *std::move(child);
}

}  // namespace

NodeProcess::NodeProcess(const ClusterOptions& options, const std::string& type)
    : child_(StartNode(options, type)) {}

NodeProcess::~NodeProcess() {
  const std::optional<int> status = child_.Finish(kDeadline);
  if (!status.has_value()) {
    std::fprintf(stderr, "cluster_sharding: node %s did not exit; killed\n",
                 address().c_str());
  } else if (!killed_ && !(WIFEXITED(*status) && WEXITSTATUS(*status) == 0)) {
    Die(absl::StrCat("node ", address(), " ended badly (wait status ", *status,
                     ")"));
  }
}

void NodeProcess::Signal(int signal) {
  killed_ = signal == SIGKILL;
  if (!child_.Signal(signal)) {
    Die(absl::StrCat("cannot signal node ", address()));
  }
}

}  // namespace cairn::bench::cluster
