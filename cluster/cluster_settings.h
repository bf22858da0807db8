#ifndef CAIRN_CLUSTER_CLUSTER_SETTINGS_H_
#define CAIRN_CLUSTER_CLUSTER_SETTINGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "hocon/config.h"

namespace cairn::cluster {

// `akka.cluster`, read once when the system starts; reference.conf
// documents each key.
struct ClusterSettings {
  std::vector<std::string> roles;
  absl::Duration member_ttl = absl::Seconds(10);
  absl::Duration renew_interval = absl::Seconds(3);
  absl::Duration refresh_interval = absl::Seconds(2);
  bool run_coordinated_shutdown_when_down = true;

  // InvalidArgument naming the key: a duration that is not positive, a
  // renew-interval not below member-ttl, a role that is empty.
  static absl::StatusOr<ClusterSettings> FromConfig(
      const hocon::Config& config);
};

}  // namespace cairn::cluster

#endif  // CAIRN_CLUSTER_CLUSTER_SETTINGS_H_
