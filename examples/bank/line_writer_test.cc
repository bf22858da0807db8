#include "examples/bank/line_writer.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace cairn::examples::bank {
namespace {

class LineWriterTest : public ::testing::Test {
 protected:
  LineWriterTest() { EXPECT_EQ(::pipe2(fds_, O_CLOEXEC), 0); }
  ~LineWriterTest() override {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }

  // What arrives on the pipe within `wait` (nothing waited for if zero).
  std::string Read(absl::Duration wait) {
    std::string got;
    const absl::Time deadline = absl::Now() + wait;
    while (true) {
      struct pollfd p = {fds_[0], POLLIN, 0};
      const int ms = static_cast<int>(std::max<int64_t>(
          0, absl::ToInt64Milliseconds(deadline - absl::Now())));
      if (::poll(&p, 1, got.empty() ? ms : 0) <= 0) return got;
      char chunk[65536];
      const ssize_t n = ::read(fds_[0], chunk, sizeof(chunk));
      if (n <= 0) return got;
      got.append(chunk, static_cast<size_t>(n));
    }
  }

  int fds_[2];
};

TEST_F(LineWriterTest, TheFlusherWritesPendingLinesWithinTheDelay) {
  BatchedLineWriter writer(fds_[1], 1000, absl::Milliseconds(50));
  writer.Add("ack 1 2");
  writer.Add("ack 0 3");
  EXPECT_EQ(Read(absl::Seconds(10)), "ack 1 2\nack 0 3\n");
}

TEST_F(LineWriterTest, AFullBatchIsWrittenAtOnce) {
  // A flusher that never comes in time: only the count triggers a write.
  BatchedLineWriter writer(fds_[1], 3, absl::Hours(1));
  writer.Add("a");
  writer.Add("b");
  EXPECT_EQ(Read(absl::ZeroDuration()), "");
  writer.Add("c");
  EXPECT_EQ(Read(absl::ZeroDuration()), "a\nb\nc\n");
}

TEST_F(LineWriterTest, DestructionWritesWhatIsPending) {
  {
    BatchedLineWriter writer(fds_[1], 1000, absl::Hours(1));
    writer.Add("last");
  }
  EXPECT_EQ(Read(absl::ZeroDuration()), "last\n");
}

}  // namespace
}  // namespace cairn::examples::bank
