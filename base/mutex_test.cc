#include "base/mutex.h"

#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace cairn::base {
namespace {

class Counter {
 public:
  void Add() {
    MutexLock lock(&mu_);
    ++count_;
    changed_.SignalAll();
  }
  // Returns whether `n` was reached before `timeout`.
  bool AwaitAtLeast(int n, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    MutexLock lock(&mu_);
    while (count_ < n) {
      if (changed_.WaitWithDeadline(&mu_, deadline)) return count_ >= n;
    }
    return true;
  }
  int count() {
    MutexLock lock(&mu_);
    return count_;
  }

 private:
  Mutex mu_;
  CondVar changed_;
  int count_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(MutexTest, MutexLockExcludesOtherThreads) {
  Counter counter;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&counter] {
      for (int i = 0; i < 10000; ++i) counter.Add();
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(counter.count(), 40000);
}

TEST(MutexTest, WaitReturnsWhenAnotherThreadSignals) {
  Counter counter;
  std::thread adder([&counter] { counter.Add(); });
  EXPECT_TRUE(counter.AwaitAtLeast(1, absl::Seconds(30)));
  adder.join();
}

TEST(MutexTest, WaitWithTimeoutReportsTheTimeout) {
  Mutex mu;
  CondVar never;
  MutexLock lock(&mu);
  EXPECT_TRUE(never.WaitWithTimeout(&mu, absl::Milliseconds(1)));
  EXPECT_TRUE(never.WaitWithDeadline(&mu, absl::Now() - absl::Seconds(1)));
}

TEST(MutexTest, TryLockFailsWhileHeld) {
  Mutex mu;
  MutexLock lock(&mu);
  bool took = true;
  std::thread other([&] {
    if (mu.TryLock()) {
      mu.Unlock();
    } else {
      took = false;
    }
  });
  other.join();
  EXPECT_FALSE(took);
}

TEST(MutexTest, ReadersShareWritersExclude) {
  ReaderWriterMutex mu;
  {
    ReaderMutexLock reader(&mu);
    // Would never return if readers excluded each other.
    std::thread other([&mu] { ReaderMutexLock second(&mu); });
    other.join();
  }
  WriterMutexLock writer(&mu);
}

}  // namespace
}  // namespace cairn::base
