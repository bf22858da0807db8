#include "examples/store_failure/serialization.h"

#include <string>
#include <string_view>

namespace cairn::examples::store_failure {

absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
NewSerialization() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status s = registry->Register<Incremented>(
      kIncrementedManifest,
      [](const Incremented&) -> absl::StatusOr<std::string> {
        return std::string();
      },
      [](std::string_view) -> absl::StatusOr<Incremented> {
        return Incremented{};
      });
  if (!s.ok()) return s;
  return registry;
}

}  // namespace cairn::examples::store_failure
