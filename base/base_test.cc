#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "base/demangle.h"
#include "base/ring_queue.h"
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

TEST(RingQueueTest, KeepsOrderAcrossWrapAroundAndGrowth) {
  RingQueue<int> q;
  EXPECT_TRUE(q.empty());
  int next_in = 0, next_out = 0;
  // Pushes run ahead of pops, so the ring wraps and then grows while
  // wrapped.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 3; ++i) q.push_back(next_in++);
    EXPECT_EQ(q.front(), next_out);
    q.pop_front();
    ++next_out;
  }
  EXPECT_EQ(q.size(), static_cast<std::size_t>(next_in - next_out));
  while (!q.empty()) {
    EXPECT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(RingQueueTest, PopAndClearReleaseWhatTheyRemove) {
  auto held = std::make_shared<int>(1);
  RingQueue<std::shared_ptr<int>> q;
  q.push_back(held);
  q.push_back(held);
  EXPECT_EQ(held.use_count(), 3);
  q.pop_front();
  EXPECT_EQ(held.use_count(), 2);
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(held.use_count(), 1);
}

}  // namespace
}  // namespace cairn::base
