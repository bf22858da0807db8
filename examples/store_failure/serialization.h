#ifndef CAIRN_EXAMPLES_STORE_FAILURE_SERIALIZATION_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_SERIALIZATION_H_

#include <memory>

#include "absl/status/statusor.h"
#include "serialization/serialization.h"

namespace cairn::examples::store_failure {

// The counter's only event: the count went up by one. Nothing to store but
// its type.
struct Incremented {};

// The manifest Incremented is stored under.
inline constexpr char kIncrementedManifest[] = "store-failure.Incremented.v1";

// A registry that serializes Incremented, for PersistenceSetup.
[[nodiscard]] absl::StatusOr<
    std::shared_ptr<const serialization::SerializationRegistry>>
NewSerialization();

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_SERIALIZATION_H_
