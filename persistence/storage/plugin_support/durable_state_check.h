#ifndef CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_DURABLE_STATE_CHECK_H_
#define CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_DURABLE_STATE_CHECK_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serialization/serializer.h"

namespace cairn::persistence::plugin_support {

// What every durable state store checks before an upsert
// (durable_state_store.h), in this order and with these words: InvalidArgument
// naming the id if `revision` is below 1; the serializer's error, naming the
// id, if the value could not be serialized (`value`); OK otherwise.
[[nodiscard]] absl::Status CheckStateUpsert(
    std::string_view persistence_id, int64_t revision,
    const absl::StatusOr<serialization::SerializedPayload>& value);

// The refusal of a write of `revision` where `stored` is stored (anything
// but stored + 1): FailedPrecondition naming the id and both revisions.
[[nodiscard]] absl::Status StateRevisionConflict(
    std::string_view persistence_id, int64_t revision, int64_t stored);

}  // namespace cairn::persistence::plugin_support

#endif  // CAIRN_PERSISTENCE_STORAGE_PLUGIN_SUPPORT_DURABLE_STATE_CHECK_H_
