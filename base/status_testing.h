#ifndef CAIRN_BASE_STATUS_TESTING_H_
#define CAIRN_BASE_STATUS_TESTING_H_

// gtest assertions on absl::Status and absl::StatusOr<T> that print the
// failing status, for tests only (the target is testonly). A bare
// `EXPECT_TRUE(s.ok())` reports only "Value of: s.ok() Actual: false";
// these report the expression and the status's code and message:
//
//   EXPECT_OK(journal->Write(events)) << "while writing " << n;
//   ASSERT_OK(store.Open());
//   ASSERT_OK_AND_ASSIGN(std::unique_ptr<Journal> journal, Journal::Open(dir));
//
// EXPECT_OK and ASSERT_OK take an absl::Status, an absl::StatusOr<T>, or
// another library's status with ok() and ToString() (rocksdb::Status) and,
// like other gtest assertions, accept `<< context`. An expression with an
// unparenthesized comma (a template argument list) must be wrapped in
// parentheses, as for EXPECT_TRUE.
//
// ASSERT_OK_AND_ASSIGN(lhs, rexpr) evaluates rexpr (an absl::StatusOr<T>)
// once; if it is not OK the test fails and the enclosing function returns
// (so it may only be used in a function returning void, as ASSERT_*);
// otherwise its value is moved into lhs, which is a variable or a
// declaration (`auto x`, `std::unique_ptr<T> p`) in the enclosing scope.
// rexpr may contain commas; lhs may not (unless parenthesized as an
// expression). Each use needs its own line.

#include <concepts>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace cairn::base::status_testing {

// The predicate formatters behind EXPECT_OK and ASSERT_OK.
inline ::testing::AssertionResult IsOk(const char* expression_text,
                                       const absl::Status& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << expression_text << " is not OK: " << status;
}

template <typename T>
::testing::AssertionResult IsOk(const char* expression_text,
                                const absl::StatusOr<T>& status_or) {
  return IsOk(expression_text, status_or.status());
}

// Another library's status with ok() and ToString() (rocksdb::Status).
template <typename StatusLike>
requires requires(const StatusLike& status) {
  { status.ok() } -> std::convertible_to<bool>;
  { status.ToString() } -> std::convertible_to<std::string>;
}
::testing::AssertionResult IsOk(const char* expression_text,
                                const StatusLike& status) {
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << expression_text << " is not OK: " << status.ToString();
}

}  // namespace cairn::base::status_testing

#define EXPECT_OK(expression) \
  EXPECT_PRED_FORMAT1(::cairn::base::status_testing::IsOk, expression)

#define ASSERT_OK(expression) \
  ASSERT_PRED_FORMAT1(::cairn::base::status_testing::IsOk, expression)

#define ASSERT_OK_AND_ASSIGN(lhs, ...)                               \
  CAIRN_STATUS_TESTING_ASSIGN_(                                      \
      CAIRN_STATUS_TESTING_CONCAT_(cairn_status_or_, __LINE__), lhs, \
      __VA_ARGS__)

// Implementation details of ASSERT_OK_AND_ASSIGN.
#define CAIRN_STATUS_TESTING_CONCAT_INNER_(a, b) a##b
#define CAIRN_STATUS_TESTING_CONCAT_(a, b) \
  CAIRN_STATUS_TESTING_CONCAT_INNER_(a, b)
#define CAIRN_STATUS_TESTING_ASSIGN_(status_or, lhs, ...)             \
  auto status_or = (__VA_ARGS__);                                     \
  if (!status_or.ok()) {                                              \
    GTEST_FAIL() << ::cairn::base::status_testing::IsOk(#__VA_ARGS__, \
                                                        status_or)    \
                        .message();                                   \
  }                                                                   \
  lhs = *std::move(status_or)

#endif  // CAIRN_BASE_STATUS_TESTING_H_
