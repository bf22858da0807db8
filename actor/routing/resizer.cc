#include "actor/routing/resizer.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "actor/mailbox_status.h"

namespace cairn::actor::routing {

absl::Status DefaultResizer::Validate() const {
  auto bad = [](const char* field, const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat("DefaultResizer.", field, ": ", what));
  };
  if (lower_bound < 0) {
    return bad("lower_bound", absl::StrCat("must be >= 0, got ", lower_bound));
  }
  if (upper_bound < 0) {
    return bad("upper_bound", absl::StrCat("must be >= 0, got ", upper_bound));
  }
  if (upper_bound < lower_bound) {
    return bad("upper_bound",
               absl::StrCat("must be >= lower_bound (", lower_bound, "), got ",
                            upper_bound));
  }
  if (rampup_rate < 0) {
    return bad("rampup_rate", absl::StrCat("must be >= 0, got ", rampup_rate));
  }
  if (backoff_threshold > 1.0) {
    return bad("backoff_threshold",
               absl::StrCat("must be <= 1, got ", backoff_threshold));
  }
  if (backoff_rate < 0) {
    return bad("backoff_rate",
               absl::StrCat("must be >= 0, got ", backoff_rate));
  }
  if (messages_per_resize < 1) {
    return bad("messages_per_resize",
               absl::StrCat("must be >= 1, got ", messages_per_resize));
  }
  return absl::OkStatus();
}

int DefaultResizer::Pressure(const std::vector<Routee>& routees) const {
  int busy = 0;
  for (const Routee& routee : routees) {
    if (routee.is_selection()) continue;
    const std::optional<MailboxStatus> status =
        LocalMailboxStatus(routee.ref());
    if (!status.has_value()) continue;
    if (pressure_threshold == 1) {
      busy += status->scheduled && status->queued > 0;
    } else if (pressure_threshold < 1) {
      busy += status->scheduled;
    } else {
      busy += status->queued >= static_cast<size_t>(pressure_threshold);
    }
  }
  return busy;
}

int DefaultResizer::Rampup(int pressure, int capacity) const {
  if (pressure < capacity) return 0;
  return static_cast<int>(std::ceil(rampup_rate * capacity));
}

int DefaultResizer::Backoff(int pressure, int capacity) const {
  if (backoff_threshold <= 0 || backoff_rate <= 0 || capacity <= 0) return 0;
  if (static_cast<double>(pressure) / capacity >= backoff_threshold) return 0;
  return static_cast<int>(std::floor(-backoff_rate * capacity));
}

int DefaultResizer::Resize(const std::vector<Routee>& routees) const {
  const int current = static_cast<int>(routees.size());
  const int pressure = Pressure(routees);
  const int delta = Rampup(pressure, current) + Backoff(pressure, current);
  const int proposed = current + delta;
  if (proposed < lower_bound) return lower_bound - current;
  if (proposed > upper_bound) return upper_bound - current;
  return delta;
}

absl::StatusOr<std::optional<DefaultResizer>> DefaultResizer::FromConfig(
    const hocon::Config& deployment) {
  if (!deployment.HasPath("resizer")) return std::nullopt;
  auto bad = [](const std::string& key, const absl::Status& status) {
    return absl::InvalidArgumentError(
        absl::StrCat("resizer.", key, ": ", status.message()));
  };
  absl::StatusOr<bool> enabled = deployment.GetBoolOr("resizer.enabled", false);
  if (!enabled.ok()) return bad("enabled", enabled.status());
  if (!*enabled) return std::nullopt;
  DefaultResizer r;
  struct IntKey {
    const char* key;
    int* field;
  };
  for (const IntKey& k :
       {IntKey{"lower-bound", &r.lower_bound},
        IntKey{"upper-bound", &r.upper_bound},
        IntKey{"pressure-threshold", &r.pressure_threshold},
        IntKey{"messages-per-resize", &r.messages_per_resize}}) {
    absl::StatusOr<int> v =
        deployment.GetIntOr(absl::StrCat("resizer.", k.key), *k.field);
    if (!v.ok()) return bad(k.key, v.status());
    *k.field = *v;
  }
  struct DoubleKey {
    const char* key;
    double* field;
  };
  for (const DoubleKey& k :
       {DoubleKey{"rampup-rate", &r.rampup_rate},
        DoubleKey{"backoff-threshold", &r.backoff_threshold},
        DoubleKey{"backoff-rate", &r.backoff_rate}}) {
    absl::StatusOr<double> v =
        deployment.GetDoubleOr(absl::StrCat("resizer.", k.key), *k.field);
    if (!v.ok()) return bad(k.key, v.status());
    *k.field = *v;
  }
  if (absl::Status valid = r.Validate(); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("resizer: ", valid.message()));
  }
  return r;
}

}  // namespace cairn::actor::routing
