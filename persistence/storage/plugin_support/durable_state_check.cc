#include "persistence/storage/plugin_support/durable_state_check.h"

#include "base/string_view.h"

namespace cairn::persistence::plugin_support {

absl::Status CheckStateUpsert(
    std::string_view persistence_id, int64_t revision,
    const absl::StatusOr<serialization::SerializedPayload>& value) {
  if (revision < 1) {
    return absl::InvalidArgumentError(
        base::StrCat("durable state of persistence id '", persistence_id,
                     "': revision ", revision, " is below 1"));
  }
  if (!value.ok()) {
    return absl::Status(
        value.status().code(),
        base::StrCat("durable state of persistence id '", persistence_id,
                     "' cannot be serialized: ", value.status().message()));
  }
  return absl::OkStatus();
}

absl::Status StateRevisionConflict(std::string_view persistence_id,
                                   int64_t revision, int64_t stored) {
  return absl::FailedPreconditionError(base::StrCat(
      "durable state of persistence id '", persistence_id, "': revision ",
      revision, " written where revision ", stored,
      " is stored (one writer per id: each write is the stored revision + 1)"));
}

}  // namespace cairn::persistence::plugin_support
