#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "base/demangle.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "gtest/gtest.h"

namespace cairn::base {
namespace {

struct Widget {};

TEST(DemangleTest, NamesTypesAsWritten) {
  EXPECT_EQ(DemangledTypeName(typeid(int)), "int");
  EXPECT_EQ(DemangledTypeName(typeid(Widget)),
            "cairn::base::(anonymous namespace)::Widget");
  EXPECT_EQ(DemangledTypeName(std::type_index(typeid(std::vector<int>))),
            DemangledTypeName(typeid(std::vector<int>)));
}

TEST(StringViewTest, BridgesBothWays) {
  const std::string text = "journal";
  const std::string_view view = text;
  EXPECT_EQ(Sv(Av(view)), view);
  EXPECT_EQ(Av(view).data(), text.data());
  EXPECT_EQ(StrCat("a", view, 1, std::string("b")), "ajournal1b");
}

TEST(StatusCopyTest, KeepsCodeAndMessageInStorageOfItsOwn) {
  const absl::Status original = absl::UnavailableError("store is down");
  const absl::Status copy = OwnCopy(original);
  EXPECT_EQ(copy, original);
  EXPECT_NE(copy.message().data(), original.message().data());
  EXPECT_TRUE(OwnCopy(absl::OkStatus()).ok());
}

}  // namespace
}  // namespace cairn::base
