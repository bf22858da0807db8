#ifndef CAIRN_PERSISTENCE_STORAGE_TESTING_MEMBER_STORE_SPEC_H_
#define CAIRN_PERSISTENCE_STORAGE_TESTING_MEMBER_STORE_SPEC_H_

// MemberStore's contract (persistence/storage/member_store.h) as a suite
// every store runs: a test binary links
// //persistence/storage/testing:member_store_spec and instantiates it,
// inside namespace cairn::persistence::testing:
//
//   INSTANTIATE_TEST_SUITE_P(InMemory, MemberStoreSpec,
//                            ::testing::Values(MemberStoreUnderTest{...}));
//
// Rows run out in real time: each test that needs an expired row joins it
// with a short ttl and waits, with a deadline, until Read says it ran out.

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "persistence/storage/member_store.h"

namespace cairn::persistence::testing {

struct MemberStoreUnderTest {
  std::string name;  // the instantiation's, for test names
  // Two handles on the same, empty rows: the second stands for another
  // process's (for PostgreSQL, another connection pool). Called once per
  // test; null (with a test failure or GTEST_SKIP) if it cannot.
  std::function<
      std::pair<std::shared_ptr<MemberStore>, std::shared_ptr<MemberStore>>()>
      open;
};

// gtest prints a parameter by its name.
inline void PrintTo(const MemberStoreUnderTest& store, std::ostream* os) {
  *os << store.name;
}

class MemberStoreSpec : public ::testing::TestWithParam<MemberStoreUnderTest> {
 protected:
  void SetUp() override;

  // A member at akka://s@127.0.0.1:<port> with `uid` and roles {"a", "b"}.
  static MemberRecord Member(int port, int64_t uid);
  // The rows, by Read on `store` (store_ when null); a test failure and
  // none if Read fails.
  MemberSnapshot ReadAll(MemberStore* store = nullptr);
  // Waits until the row at `address` has run out, by Read; false at the
  // deadline.
  bool AwaitExpired(const std::string& address);

  std::shared_ptr<MemberStore> store_;
  std::shared_ptr<MemberStore> other_;
};

}  // namespace cairn::persistence::testing

#endif  // CAIRN_PERSISTENCE_STORAGE_TESTING_MEMBER_STORE_SPEC_H_
