#include "persistence/storage/testing/test_serialization.h"

#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "serialization/flatbuffers_serialization.h"

namespace cairn::persistence::testing {
namespace {

void CheckOk(const absl::Status& status) {
  if (!status.ok()) {
    std::cerr << "NewTestSerialization: " << status << "\n";
    std::abort();
  }
}

}  // namespace

std::shared_ptr<const serialization::SerializationRegistry>
NewTestSerialization() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  CheckOk(serialization::RegisterFlatBuffers<TestEventT>(*registry,
                                                         kTestEventManifest));
  CheckOk(serialization::RegisterFlatBuffersTable<Amount, TestAmount>(
      *registry, kAmountManifest,
      [](flatbuffers::FlatBufferBuilder& builder, const Amount& amount) {
        return CreateTestAmount(builder, amount.value);
      },
      [](const TestAmount& table) -> absl::StatusOr<Amount> {
        return Amount{table.amount()};
      }));
  CheckOk(registry->Register<FailsToDecode>(
      kFailsToDecodeManifest,
      [](const FailsToDecode& value) -> absl::StatusOr<std::string> {
        return std::to_string(value.value);
      },
      [](std::string_view) -> absl::StatusOr<FailsToDecode> {
        return absl::DataLossError("FailsToDecode cannot be decoded");
      }));
  return registry;
}

}  // namespace cairn::persistence::testing
