#include "cluster/cluster_settings.h"

#include <string_view>

#include "base/string_view.h"

namespace cairn::cluster {
namespace {

absl::Status Invalid(std::string_view key, std::string_view why) {
  return absl::InvalidArgumentError(
      base::StrCat("akka.cluster.", key, ": ", why));
}

// Config's own errors name the path and where it was set.
absl::Status Bad(const absl::Status& status) {
  return absl::InvalidArgumentError(std::string(status.message()));
}

absl::StatusOr<absl::Duration> Positive(const hocon::Config& config,
                                        std::string_view key) {
  absl::StatusOr<absl::Duration> d =
      config.GetDuration(base::StrCat("akka.cluster.", key));
  if (!d.ok()) return Bad(d.status());
  if (*d <= absl::ZeroDuration()) return Invalid(key, "must be positive");
  return *d;
}

}  // namespace

absl::StatusOr<ClusterSettings> ClusterSettings::FromConfig(
    const hocon::Config& config) {
  ClusterSettings s;
  absl::StatusOr<std::vector<std::string>> roles =
      config.GetStringList("akka.cluster.roles");
  if (!roles.ok()) return Bad(roles.status());
  for (const std::string& role : *roles) {
    if (role.empty()) return Invalid("roles", "a role is empty");
  }
  s.roles = *std::move(roles);
  absl::StatusOr<absl::Duration> d = Positive(config, "membership.member-ttl");
  if (!d.ok()) return d.status();
  s.member_ttl = *d;
  if (d = Positive(config, "membership.renew-interval"); !d.ok()) {
    return d.status();
  }
  s.renew_interval = *d;
  if (s.renew_interval >= s.member_ttl) {
    return Invalid("membership.renew-interval",
                   base::StrCat("must be below member-ttl (",
                                absl::FormatDuration(s.member_ttl),
                                "): a row would run out between renewals"));
  }
  if (d = Positive(config, "membership.refresh-interval"); !d.ok()) {
    return d.status();
  }
  s.refresh_interval = *d;
  absl::StatusOr<bool> down =
      config.GetBool("akka.cluster.run-coordinated-shutdown-when-down");
  if (!down.ok()) return Bad(down.status());
  s.run_coordinated_shutdown_when_down = *down;
  return s;
}

}  // namespace cairn::cluster
