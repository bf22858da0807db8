#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_TEST_SERIALIZATION_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_TEST_SERIALIZATION_H_

#include <cstdint>
#include <memory>

#include "persistence/storage/testing/test_events_generated.h"
#include "serialization/serialization.h"

namespace cairn::persistence::testing {

// Registered with RegisterFlatBuffersTable (a hand-written C++ type stored
// as the TestAmount table).
struct Amount {
  int64_t value = 0;
  bool operator==(const Amount&) const = default;
};

// Registered nowhere: writing it is a rejection.
struct NotSerializable {
  int value = 0;
};

// Registered with a decoder that always fails (DataLoss): it is stored like
// any event or snapshot and cannot be read back, as a record whose type
// changed incompatibly. For tests of replay and load failures on every
// plugin, without damaging a store.
struct FailsToDecode {
  int value = 0;
};

inline constexpr char kTestEventManifest[] = "cairn.test.TestEvent";
inline constexpr char kAmountManifest[] = "cairn.test.Amount";
inline constexpr char kFailsToDecodeManifest[] = "cairn.test.FailsToDecode";

// A registry with std::string (built in), TestEventT (RegisterFlatBuffers),
// Amount (RegisterFlatBuffersTable) and FailsToDecode (Register). Aborts the
// test binary if registration fails, which would be a bug in the registry.
std::shared_ptr<const serialization::SerializationRegistry>
NewTestSerialization();

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_TEST_SERIALIZATION_H_
