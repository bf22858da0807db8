// InMemoryMemberStore against MemberStore's contract: both handles are the
// one store, as several systems in one process share it.
#include "persistence/inmem/in_memory_member_store.h"

#include <memory>
#include <utility>

#include "gtest/gtest.h"
#include "persistence/storage/testing/member_store_spec.h"

namespace cairn::persistence::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(
    InMemory, MemberStoreSpec,
    ::testing::Values(MemberStoreUnderTest{
        "InMemory",
        [] {
          auto store = std::make_shared<InMemoryMemberStore>();
          return std::make_pair(std::shared_ptr<MemberStore>(store),
                                std::shared_ptr<MemberStore>(store));
        }}),
    [](const ::testing::TestParamInfo<MemberStoreUnderTest>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace cairn::persistence::testing
