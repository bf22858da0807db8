#include <sched.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "base/crc32c.h"
#include "base/demangle.h"
#include "base/pinned_to_one_cpu.h"
#include "base/ring_queue.h"
#include "base/status_copy.h"
#include "base/status_testing.h"
#include "base/string_view.h"
#include "base/usable_cpus.h"
#include "base/varint.h"
#include "gtest/gtest.h"

namespace cairn::base {
namespace {

struct Widget {};

TEST(Crc32cTest, MatchesTheStandardCheckValues) {
  // RFC 3720, appendix B.4, and the catalogue's check value.
  EXPECT_EQ(Crc32c("123456789"), 0xe3069283u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8a9136aau);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62a8ab43u);
  EXPECT_EQ(Crc32c(""), 0u);
}

TEST(Crc32cTest, ExtendsAcrossPiecesOfEveryLength) {
  std::string data;
  for (int i = 0; i < 100; ++i) data.push_back(static_cast<char>(i * 37));
  const uint32_t whole = Crc32c(data);
  for (size_t cut = 0; cut <= data.size(); ++cut) {
    const std::string_view all(data);
    EXPECT_EQ(Crc32c(all.substr(cut), Crc32c(all.substr(0, cut))), whole)
        << cut;
  }
}

TEST(VarintTest, RoundTripsAndRefusesWhatIsCutShortOrTooLong) {
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128},
                         uint64_t{300}, uint64_t{1} << 35, ~uint64_t{0}}) {
    std::string bytes;
    AppendVarint(bytes, value);
    size_t pos = 0;
    uint64_t read = 0;
    ASSERT_TRUE(ReadVarint(bytes, pos, read)) << value;
    EXPECT_EQ(read, value);
    EXPECT_EQ(pos, bytes.size());
    pos = 0;
    EXPECT_FALSE(ReadVarint(std::string_view(bytes).substr(0, bytes.size() - 1),
                            pos, read))
        << value;
  }
  std::string max;
  AppendVarint(max, ~uint64_t{0});
  EXPECT_EQ(max.size(), kMaxVarintBytes);
  max.back() = 0x02;  // a 65th bit
  size_t pos = 0;
  uint64_t read = 0;
  EXPECT_FALSE(ReadVarint(max, pos, read));
  for (int64_t value : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-64},
                        INT64_MIN, INT64_MAX}) {
    EXPECT_EQ(UnZigZag(ZigZag(value)), value);
  }
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
}

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
  EXPECT_OK(OwnCopy(absl::OkStatus()));
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

// A moved-from queue is empty and usable (it said it held elements it had
// no buffer for).
TEST(RingQueueTest, AMovedFromQueueIsEmpty) {
  RingQueue<int> q;
  q.push_back(1);
  q.push_back(2);
  RingQueue<int> moved(std::move(q));
  EXPECT_TRUE(q.empty());  // NOLINT(bugprone-use-after-move): the contract
  q.push_back(3);
  EXPECT_EQ(q.front(), 3);
  RingQueue<int> assigned;
  assigned = std::move(moved);
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  ASSERT_EQ(assigned.size(), 2u);
  EXPECT_EQ(assigned.front(), 1);
}

TEST(UsableCpusTest, CountsTheCpusOfTheThreadsAffinityMask) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  EXPECT_EQ(UsableCpus(), CPU_COUNT(&all));
  // As under `taskset -c N`: one CPU, however many are online.
  PinnedToOneCpu pinned;
  ASSERT_TRUE(pinned.ok());
  EXPECT_EQ(UsableCpus(), 1);
}

}  // namespace
}  // namespace cairn::base
