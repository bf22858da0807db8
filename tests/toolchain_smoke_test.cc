#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
TEST(Smoke, Absl) { absl::StatusOr<int> s = 3; EXPECT_EQ(absl::StrCat(*s), "3"); }
