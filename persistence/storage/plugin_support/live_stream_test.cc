#include "persistence/storage/plugin_support/live_stream.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/sync_calls.h"

namespace cairn::persistence::plugin_support {
namespace {

using ::cairn::persistence::testing::PullAll;
using ::cairn::persistence::testing::PullOnce;
using ::cairn::persistence::testing::PullSlot;
using ::cairn::persistence::testing::Slot;
using ::cairn::persistence::testing::StartPull;
using IdBatch = QueryStream<std::string>::Batch;

// A store of ids, only appended to, with the notifier its "journal" tells
// of commits.
struct FakeStore {
  // Appends `id`; tells the notifier unless `notify` is false (a commit of
  // another process, seen only by a refresh).
  void Append(std::string id, bool notify = true) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.push_back(std::move(id));
    }
    if (notify) notifier.Notify();
  }

  std::mutex mu;
  std::vector<std::string> ids;  // guarded by mu
  CommitNotifier notifier;
};

// The ids by position: current up to the end at its first Next, live up
// to the end at each. `after_read` runs after each read, under no lock.
class IdsCursor final : public QueryCursor<std::string> {
 public:
  IdsCursor(std::shared_ptr<FakeStore> store, QueryMode mode,
            std::function<void()> after_read = nullptr)
      : store_(std::move(store)),
        live_(mode == QueryMode::kLive),
        after_read_(std::move(after_read)) {}

  absl::StatusOr<Batch> Next(std::size_t max) override {
    Batch batch;
    {
      std::lock_guard<std::mutex> lock(store_->mu);
      if (!started_ || live_) {
        started_ = true;
        end_ = store_->ids.size();
      }
      const std::size_t stop = next_ + std::min(max, end_ - next_);
      batch.elements.assign(store_->ids.begin() + next_,
                            store_->ids.begin() + stop);
      next_ = stop;
      batch.complete = !live_ && next_ == end_;
    }
    if (after_read_) after_read_();
    return batch;
  }

 private:
  const std::shared_ptr<FakeStore> store_;
  const bool live_;
  const std::function<void()> after_read_;
  bool started_ = false;
  std::size_t end_ = 0;
  std::size_t next_ = 0;
};

// Returns `result` at every Next.
class FixedCursor final : public QueryCursor<std::string> {
 public:
  explicit FixedCursor(absl::StatusOr<Batch> result)
      : result_(std::move(result)) {}
  absl::StatusOr<Batch> Next(std::size_t) override { return result_; }

 private:
  const absl::StatusOr<Batch> result_;
};

// Blocks in Next until Open; then is caught up.
class GateCursor final : public QueryCursor<std::string> {
 public:
  absl::StatusOr<Batch> Next(std::size_t) override {
    std::unique_lock<std::mutex> lock(mu_);
    entered_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
    return Batch{};
  }
  void AwaitEntered() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [this] { return entered_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  bool entered_ = false;  // guarded by mu_
  bool open_ = false;     // guarded by mu_
};

// True once `done` holds, false after 10 s.
bool Eventually(const std::function<bool()>& done) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!done()) {
    if (absl::Now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

class LiveStreamTest : public ::testing::Test {
 protected:
  std::unique_ptr<QueryHub> NewHub(QueryHubOptions options = {}) {
    return std::make_unique<QueryHub>(
        std::move(options),
        std::shared_ptr<CommitNotifier>(store_, &store_->notifier));
  }
  std::unique_ptr<QueryStream<std::string>> Ids(QueryHub& hub, QueryMode mode) {
    return hub.NewStream<std::string>(std::make_unique<IdsCursor>(store_, mode),
                                      mode);
  }
  // Pulls until a Pull parks.
  void AwaitParked(QueryHub& hub, std::size_t parked) {
    ASSERT_TRUE(Eventually([&] { return hub.ParkedForTesting() == parked; }));
  }

  const std::shared_ptr<FakeStore> store_ = std::make_shared<FakeStore>();
};

TEST_F(LiveStreamTest, ACurrentQueryDeliversAtMostMaxThenCompletes) {
  for (int i = 0; i < 5; ++i) store_->Append(absl::StrCat("id-", i));
  auto hub = NewHub();
  auto stream = Ids(*hub, QueryMode::kCurrent);
  std::vector<std::size_t> sizes;
  absl::StatusOr<std::vector<std::string>> all = PullAll(*stream, 2, &sizes);
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 5u);
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 2, 1}));
}

TEST_F(LiveStreamTest, PullRulesErrorThenCompletionThenMaxZero) {
  store_->Append("a");
  auto hub = NewHub();
  auto stream = Ids(*hub, QueryMode::kCurrent);
  EXPECT_EQ(PullOnce(*stream, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_OK(PullAll(*stream, 10));
  EXPECT_EQ(PullOnce(*stream, 10).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(PullOnce(*stream, 0).status().code(),
            absl::StatusCode::kFailedPrecondition);

  auto failing = hub->NewStream<std::string>(
      std::make_unique<FixedCursor>(absl::DataLossError("bad record")),
      QueryMode::kLive);
  EXPECT_EQ(PullOnce(*failing, 10).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(PullOnce(*failing, 10).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(PullOnce(*failing, 0).status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(LiveStreamTest, ACaughtUpCurrentCursorFailsThePullInsteadOfParking) {
  auto hub = NewHub();
  auto stream = hub->NewStream<std::string>(
      std::make_unique<FixedCursor>(IdBatch{}), QueryMode::kCurrent);
  EXPECT_EQ(PullOnce(*stream, 10).status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(hub->ParkedForTesting(), 0u);
}

TEST_F(LiveStreamTest, ACursorReturningMoreThanMaxFailsThePull) {
  auto hub = NewHub();
  IdBatch three;
  three.elements = {"a", "b", "c"};
  auto stream = hub->NewStream<std::string>(
      std::make_unique<FixedCursor>(three), QueryMode::kLive);
  EXPECT_EQ(PullOnce(*stream, 2).status().code(), absl::StatusCode::kInternal);
}

TEST_F(LiveStreamTest, ALiveQueryParksUntilTheNextCommit) {
  store_->Append("a");
  auto hub = NewHub();
  auto stream = Ids(*hub, QueryMode::kLive);
  absl::StatusOr<IdBatch> first = PullOnce(*stream, 10);
  ASSERT_OK(first);
  EXPECT_EQ(first->elements, std::vector<std::string>{"a"});
  std::shared_ptr<PullSlot<std::string>> waiting = StartPull(*stream, 10);
  AwaitParked(*hub, 1);
  store_->Append("b");
  std::optional<absl::StatusOr<IdBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  EXPECT_EQ((*got)->elements, std::vector<std::string>{"b"});
  EXPECT_FALSE((*got)->complete);
  EXPECT_EQ(hub->ParkedForTesting(), 0u);
}

TEST_F(LiveStreamTest, ACommitDuringTheReadWakesTheParkAtOnce) {
  auto hub = NewHub();
  bool committed = false;  // the executor's thread only
  auto stream = hub->NewStream<std::string>(
      std::make_unique<IdsCursor>(store_, QueryMode::kLive,
                                  [&] {
                                    if (committed) return;
                                    committed = true;
                                    store_->Append("late");
                                  }),
      QueryMode::kLive);
  // The first read finds nothing, then "late" commits before the park.
  absl::StatusOr<IdBatch> got = PullOnce(*stream, 10);
  ASSERT_OK(got);
  EXPECT_EQ(got->elements, std::vector<std::string>{"late"});
}

TEST_F(LiveStreamTest, DestroyingTheStreamCancelsItsParkedPullOnce) {
  auto hub = NewHub();
  auto stream = Ids(*hub, QueryMode::kLive);
  std::shared_ptr<PullSlot<std::string>> waiting = StartPull(*stream, 10);
  AwaitParked(*hub, 1);
  stream.reset();
  std::optional<absl::StatusOr<IdBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(hub->ParkedForTesting(), 0u);
  store_->Append("a");  // nothing waits for it
}

TEST_F(LiveStreamTest, AQueuedPullOfADestroyedStreamIsCancelledNotParked) {
  auto hub = NewHub();  // one thread
  auto gate = std::make_unique<GateCursor>();
  GateCursor& gate_ref = *gate;
  auto blocker = hub->NewStream<std::string>(std::move(gate), QueryMode::kLive);
  std::shared_ptr<PullSlot<std::string>> blocked = StartPull(*blocker, 1);
  gate_ref.AwaitEntered();
  auto stream = Ids(*hub, QueryMode::kLive);
  std::shared_ptr<PullSlot<std::string>> queued = StartPull(*stream, 10);
  stream.reset();
  gate_ref.Open();
  std::optional<absl::StatusOr<IdBatch>> got = queued->Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
  blocker.reset();
  std::optional<absl::StatusOr<IdBatch>> unblocked = blocked->Wait();
  ASSERT_TRUE(unblocked.has_value());
  EXPECT_EQ(unblocked->status().code(), absl::StatusCode::kCancelled);
}

TEST_F(LiveStreamTest, DestroyingTheHubCancelsParkedPullsAndStreamsOutliveIt) {
  auto hub = NewHub();
  auto first = Ids(*hub, QueryMode::kLive);
  auto second = Ids(*hub, QueryMode::kLive);
  std::shared_ptr<PullSlot<std::string>> a = StartPull(*first, 10);
  std::shared_ptr<PullSlot<std::string>> b = StartPull(*second, 10);
  AwaitParked(*hub, 2);
  hub.reset();
  for (auto* slot : {a.get(), b.get()}) {
    std::optional<absl::StatusOr<IdBatch>> got = slot->Wait();
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->status().code(), absl::StatusCode::kCancelled);
  }
  store_->Append("a");  // no waiter left in the notifier
  first.reset();
  second.reset();
}

TEST_F(LiveStreamTest, DestroyingTheHubRunsQueuedPullsAndTheirNextPulls) {
  store_->Append("a");
  auto hub = NewHub();  // one thread
  auto gate = std::make_unique<GateCursor>();
  GateCursor& gate_ref = *gate;
  auto blocker = hub->NewStream<std::string>(std::move(gate), QueryMode::kLive);
  std::shared_ptr<PullSlot<std::string>> blocked = StartPull(*blocker, 1);
  gate_ref.AwaitEntered();
  // Queued behind the blocker; its callback pulls again, during the drain.
  auto stream = Ids(*hub, QueryMode::kLive);
  Slot<absl::StatusOr<IdBatch>> first;
  Slot<absl::StatusOr<IdBatch>> second;
  stream->Pull(10, [&](absl::StatusOr<IdBatch> batch) {
    first.Set(std::move(batch));
    stream->Pull(
        10, [&](absl::StatusOr<IdBatch> next) { second.Set(std::move(next)); });
  });
  std::thread destroyer([&] { hub.reset(); });
  gate_ref.Open();
  destroyer.join();
  std::optional<absl::StatusOr<IdBatch>> got = first.Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  EXPECT_EQ((*got)->elements, std::vector<std::string>{"a"});
  std::optional<absl::StatusOr<IdBatch>> then = second.Wait();
  ASSERT_TRUE(then.has_value());
  EXPECT_EQ(then->status().code(), absl::StatusCode::kCancelled);
  std::optional<absl::StatusOr<IdBatch>> unblocked = blocked->Wait();
  ASSERT_TRUE(unblocked.has_value());
  EXPECT_EQ(unblocked->status().code(), absl::StatusCode::kCancelled);
}

TEST_F(LiveStreamTest, AStreamDestroyedRacingACommitCallsBackOnce) {
  store_->Append("seed");
  for (int round = 0; round < 200; ++round) {
    auto hub = NewHub();
    auto stream = Ids(*hub, QueryMode::kLive);
    // Everything stored (at most 201 ids): the next Pull parks.
    ASSERT_OK(PullOnce(*stream, 1000));
    std::atomic<int> calls{0};
    Slot<absl::StatusCode> outcome;
    stream->Pull(10, [&](absl::StatusOr<IdBatch> batch) {
      ++calls;
      outcome.Set(batch.status().code());
    });
    AwaitParked(*hub, 1);
    std::thread writer([&] { store_->Append(absl::StrCat("r", round)); });
    stream.reset();
    writer.join();
    std::optional<absl::StatusCode> code = outcome.Wait();
    ASSERT_TRUE(code.has_value());
    EXPECT_TRUE(*code == absl::StatusCode::kOk ||
                *code == absl::StatusCode::kCancelled)
        << *code;
    hub.reset();  // runs whatever was posted
    EXPECT_EQ(calls.load(), 1) << "round " << round;
  }
}

TEST_F(LiveStreamTest, ACallbackMayPullAgain) {
  for (int i = 0; i < 3; ++i) store_->Append(absl::StrCat("id-", i));
  auto hub = NewHub();
  auto stream = Ids(*hub, QueryMode::kCurrent);
  Slot<std::vector<std::string>> all;
  std::vector<std::string> seen;  // the executor's thread only
  std::function<void(absl::StatusOr<IdBatch>)> on_batch =
      [&](absl::StatusOr<IdBatch> batch) {
        ASSERT_OK(batch);
        for (std::string& id : batch->elements) seen.push_back(id);
        if (batch->complete) {
          all.Set(seen);
        } else {
          stream->Pull(1, on_batch);
        }
      };
  stream->Pull(1, on_batch);
  std::optional<std::vector<std::string>> got = all.Wait();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->size(), 3u);
}

TEST_F(LiveStreamTest, TheRefreshIntervalReadsAgainWithoutANotifier) {
  QueryHubOptions options;
  options.refresh_interval = absl::Milliseconds(20);
  QueryHub hub(options, /*commits=*/nullptr);
  auto stream = hub.NewStream<std::string>(
      std::make_unique<IdsCursor>(store_, QueryMode::kLive), QueryMode::kLive);
  std::shared_ptr<PullSlot<std::string>> waiting = StartPull(*stream, 10);
  AwaitParked(hub, 1);
  store_->Append("other-process", /*notify=*/false);
  std::optional<absl::StatusOr<IdBatch>> got = waiting->Wait();
  ASSERT_TRUE(got.has_value());
  ASSERT_OK(*got);
  EXPECT_EQ((*got)->elements, std::vector<std::string>{"other-process"});
}

TEST_F(LiveStreamTest, ManyLiveStreamsOnFourThreadsGetEveryIdOnceInOrder) {
  constexpr int kStreams = 20;
  constexpr int kIds = 100;
  QueryHubOptions options;
  options.threads = 4;
  options.refresh_interval = absl::Milliseconds(5);  // racing the commits
  auto hub = NewHub(options);
  std::vector<std::unique_ptr<QueryStream<std::string>>> streams;
  for (int i = 0; i < kStreams; ++i) {
    streams.push_back(Ids(*hub, QueryMode::kLive));
  }
  std::vector<std::vector<std::string>> got(kStreams);
  std::vector<std::thread> readers;
  for (int i = 0; i < kStreams; ++i) {
    readers.emplace_back([&, i] {
      while (got[i].size() < static_cast<std::size_t>(kIds)) {
        absl::StatusOr<IdBatch> batch = PullOnce(*streams[i], 7);
        if (!batch.ok()) {
          ADD_FAILURE() << batch.status();
          return;
        }
        for (std::string& id : batch->elements) got[i].push_back(id);
      }
    });
  }
  for (int n = 0; n < kIds; ++n) store_->Append(absl::StrCat("id-", n));
  for (std::thread& reader : readers) reader.join();
  std::vector<std::string> expected;
  for (int n = 0; n < kIds; ++n) expected.push_back(absl::StrCat("id-", n));
  for (int i = 0; i < kStreams; ++i) EXPECT_EQ(got[i], expected) << i;
}

}  // namespace
}  // namespace cairn::persistence::plugin_support
