#include "persistence/internal/opening_plugins.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/storage/testing/gate.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::internal {
namespace {

using testing::Gate;
using testing::NewTestSerialization;
using testing::ReplayMessages;
using testing::Single;
using testing::Texts;
using testing::WriteMessages;

// What an asynchronous call reported, waited for with a deadline.
template <typename T>
class Outcome {
 public:
  void Set(T value) {
    {
      base::MutexLock lock(&mu_);
      value_ = std::move(value);
      thread_ = std::this_thread::get_id();
    }
    cv_.SignalAll();
  }
  bool has_value() {
    base::MutexLock lock(&mu_);
    return value_.has_value();
  }
  T Wait() {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    base::MutexLock lock(&mu_);
    while (!value_.has_value()) {
      if (cv_.WaitWithDeadline(&mu_, deadline)) break;
    }
    EXPECT_TRUE(value_.has_value());
    return value_.value_or(T());
  }
  std::thread::id thread() {
    base::MutexLock lock(&mu_);
    return thread_;
  }

 private:
  base::Mutex mu_;
  base::CondVar cv_;
  std::optional<T> value_ ABSL_GUARDED_BY(mu_);
  std::thread::id thread_ ABSL_GUARDED_BY(mu_);
};

TEST(OpeningJournalTest, CallsMadeWhileItOpensWaitAndKeepTheirOrder) {
  Gate gate;
  OpeningJournal journal([&gate]() -> absl::StatusOr<std::unique_ptr<Journal>> {
    gate.Wait();
    return NewInMemoryJournal(NewTestSerialization());
  });
  // A write, then a replay of the same id: both return at once, and the
  // replay, handed over after the write, sees it (read after write).
  Outcome<absl::Status> written;
  std::vector<AtomicWrite> writes;
  writes.push_back(
      Single("p", 1, serialization::Payload::Of(std::string("a"))));
  journal.AsyncWriteMessages(
      std::move(writes),
      [&written](absl::Status batch, std::vector<absl::Status>) {
        written.Set(batch);
      });
  std::vector<std::string> replayed;
  Outcome<absl::Status> replay_done;
  journal.AsyncReplayMessages(
      "p", 1, kMaxSequenceNr, kMaxSequenceNr,
      [&replayed](const PersistentRepr& event) {
        replayed.push_back(*event.payload.As<std::string>());
      },
      [&replay_done](absl::Status status) { replay_done.Set(status); });
  EXPECT_FALSE(written.has_value());
  EXPECT_FALSE(replay_done.has_value());

  gate.Open();
  EXPECT_OK(written.Wait());
  EXPECT_OK(replay_done.Wait());
  EXPECT_EQ(replayed, std::vector<std::string>{"a"});
  // Open now: calls go straight through.
  EXPECT_EQ(
      Texts(ReplayMessages(journal, "p", 1, kMaxSequenceNr, kMaxSequenceNr)
                .events),
      std::vector<std::string>{"a"});
}

struct WriteResult {
  absl::Status batch;
  std::vector<absl::Status> per_write;
};

TEST(OpeningJournalTest, AFailedOpenFailsTheCallsAndTheNextCallTriesAgain) {
  Gate first_attempt;
  std::atomic<int> attempts{0};
  OpeningJournal journal([&]() -> absl::StatusOr<std::unique_ptr<Journal>> {
    if (attempts.fetch_add(1) == 0) {
      first_attempt.Wait();  // until the write below is waiting
      return absl::UnavailableError("the disk is not there yet");
    }
    return NewInMemoryJournal(NewTestSerialization());
  });
  std::vector<AtomicWrite> writes;
  writes.push_back(
      Single("p", 1, serialization::Payload::Of(std::string("a"))));
  writes.push_back(
      Single("q", 1, serialization::Payload::Of(std::string("b"))));
  Outcome<WriteResult> failed;
  journal.AsyncWriteMessages(
      std::move(writes),
      [&failed](absl::Status batch, std::vector<absl::Status> per_write) {
        failed.Set(WriteResult{std::move(batch), std::move(per_write)});
      });
  first_attempt.Open();
  WriteResult result = failed.Wait();
  EXPECT_EQ(result.batch.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(result.batch.message().find("not there yet"),
            absl::string_view::npos);
  ASSERT_EQ(result.per_write.size(), 2u);
  EXPECT_EQ(result.per_write[1].code(), absl::StatusCode::kUnavailable);
  // Never on the calling thread, inside the call (the Journal contract).
  EXPECT_NE(failed.thread(), std::this_thread::get_id());

  // The failure is not remembered: this write opens the journal.
  std::vector<AtomicWrite> retry;
  retry.push_back(Single("p", 1, serialization::Payload::Of(std::string("a"))));
  EXPECT_OK(WriteMessages(journal, std::move(retry)).batch);
  EXPECT_EQ(attempts.load(), 2);
  EXPECT_EQ(*testing::ReadHighestSequenceNr(journal, "p"), 1);
}

TEST(OpeningSnapshotStoreTest, CallsWaitForTheOpenAndFailWithItsError) {
  Gate gate;
  OpeningSnapshotStore store(
      [&gate]() -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        gate.Wait();
        return NewInMemorySnapshotStore(NewTestSerialization());
      });
  Outcome<absl::Status> saved;
  store.AsyncSave(SnapshotMetadata{"p", 3, 100},
                  serialization::Payload::Of(std::string("state")),
                  std::nullopt,
                  [&saved](absl::Status status) { saved.Set(status); });
  EXPECT_FALSE(saved.has_value());
  gate.Open();
  EXPECT_OK(saved.Wait());
  absl::StatusOr<LoadSnapshotResult> loaded = testing::LoadSnapshot(
      store, "p", SnapshotSelectionCriteria::Latest(), kMaxSequenceNr);
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->snapshot->metadata.sequence_nr, 3);

  OpeningSnapshotStore broken(
      []() -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        return absl::DataLossError("cannot read the store");
      });
  EXPECT_EQ(
      testing::LoadSnapshot(broken, "p", SnapshotSelectionCriteria::Latest(),
                            kMaxSequenceNr)
          .status()
          .code(),
      absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace cairn::persistence::internal
