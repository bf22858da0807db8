#include "base/status_testing.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace cairn::base {
namespace {

absl::Status Refuse() { return absl::NotFoundError("no journal 'orders'"); }

absl::StatusOr<int> NoNumber() {
  return absl::InvalidArgumentError("not a number: 'x'");
}

absl::StatusOr<std::unique_ptr<std::string>> Boxed(std::string text) {
  return std::make_unique<std::string>(std::move(text));
}

TEST(StatusTestingTest, OkStatusesPass) {
  EXPECT_OK(absl::OkStatus());
  ASSERT_OK(absl::OkStatus());
  EXPECT_OK(absl::StatusOr<int>(3));
  ASSERT_OK(absl::StatusOr<int>(3));
}

TEST(StatusTestingTest, ExpectOkPrintsTheExpressionCodeAndMessage) {
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(Refuse()),
                          "Refuse() is not OK: NOT_FOUND: no journal 'orders'");
  EXPECT_NONFATAL_FAILURE(
      EXPECT_OK(NoNumber()),
      "NoNumber() is not OK: INVALID_ARGUMENT: not a number: 'x'");
}

TEST(StatusTestingTest, AssertOkIsFatal) {
  EXPECT_FATAL_FAILURE(ASSERT_OK(Refuse()), "Refuse() is not OK: NOT_FOUND");
  EXPECT_FATAL_FAILURE(ASSERT_OK(NoNumber()),
                       "NoNumber() is not OK: INVALID_ARGUMENT");
}

// Another library's status, as rocksdb::Status: ok() and ToString().
struct ForeignStatus {
  bool ok() const { return text.empty(); }
  std::string ToString() const { return "Corruption: " + text; }
  std::string text;
};

TEST(StatusTestingTest, TakesAnotherLibrarysStatusWithToString) {
  EXPECT_OK(ForeignStatus{});
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(ForeignStatus{"bad block"}),
                          "is not OK: Corruption: bad block");
  EXPECT_FATAL_FAILURE(ASSERT_OK(ForeignStatus{"bad block"}),
                       "is not OK: Corruption: bad block");
}

TEST(StatusTestingTest, ContextIsAppended) {
  EXPECT_NONFATAL_FAILURE(EXPECT_OK(Refuse()) << "while opening shard " << 7,
                          "while opening shard 7");
  EXPECT_FATAL_FAILURE(ASSERT_OK(NoNumber()) << "parsing the header",
                       "parsing the header");
}

TEST(StatusTestingTest, AssertOkAndAssignMovesTheValueIntoADeclaration) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<std::string> boxed, Boxed("journal"));
  ASSERT_NE(boxed, nullptr);
  EXPECT_EQ(*boxed, "journal");
  ASSERT_OK_AND_ASSIGN(auto number, absl::StatusOr<int>(42));
  EXPECT_EQ(number, 42);
}

TEST(StatusTestingTest, AssertOkAndAssignAssignsAnExistingVariable) {
  std::unique_ptr<std::string> boxed;
  ASSERT_OK_AND_ASSIGN(boxed, Boxed("snapshot"));
  ASSERT_NE(boxed, nullptr);
  EXPECT_EQ(*boxed, "snapshot");
}

TEST(StatusTestingTest, AssertOkAndAssignEvaluatesItsExpressionOnce) {
  int calls = 0;
  auto count = [&calls]() -> absl::StatusOr<int> { return ++calls; };
  ASSERT_OK_AND_ASSIGN(int value, count());
  EXPECT_EQ(value, 1);
  EXPECT_EQ(calls, 1);
}

// A helper for EXPECT_FATAL_FAILURE, which takes a statement without access
// to local variables: reports whether the code after the assignment ran.
bool assigned_after_failure = false;

void AssignFromAFailure() {
  ASSERT_OK_AND_ASSIGN(int value, NoNumber());
  assigned_after_failure = true;
  (void)value;
}

TEST(StatusTestingTest, AssertOkAndAssignFailsAndReturnsOnAnError) {
  EXPECT_FATAL_FAILURE(
      AssignFromAFailure(),
      "NoNumber() is not OK: INVALID_ARGUMENT: not a number: 'x'");
  EXPECT_FALSE(assigned_after_failure);
}

}  // namespace
}  // namespace cairn::base
