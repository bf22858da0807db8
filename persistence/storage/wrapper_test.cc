// JournalWrapper and SnapshotStoreWrapper pass every call to their target
// with its arguments, and the target's answers back to the caller.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/snapshot_store.h"
#include "persistence/storage/snapshot_store_wrapper.h"

namespace cairn::persistence {
namespace {

// Records each call with its arguments and keeps its callbacks, for the
// test to answer.
class RecordingJournal final : public Journal {
 public:
  explicit RecordingJournal(bool* destroyed) : destroyed_(destroyed) {}
  ~RecordingJournal() override { *destroyed_ = true; }

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    calls.push_back("AsyncWriteMessages");
    this->writes = std::move(writes);
    write_done = std::move(done);
  }
  void AsyncReplayMessages(std::string persistence_id, int64_t from_sequence_nr,
                           int64_t to_sequence_nr, int64_t max,
                           ReplayCallback on_event,
                           DoneCallback done) override {
    calls.push_back("AsyncReplayMessages");
    id = std::move(persistence_id);
    from = from_sequence_nr;
    to = to_sequence_nr;
    this->max = max;
    this->on_event = std::move(on_event);
    this->done = std::move(done);
  }
  void AsyncReadHighestSequenceNr(std::string persistence_id,
                                  int64_t from_sequence_nr,
                                  HighestCallback done) override {
    calls.push_back("AsyncReadHighestSequenceNr");
    id = std::move(persistence_id);
    from = from_sequence_nr;
    highest_done = std::move(done);
  }
  void AsyncDeleteMessagesTo(std::string persistence_id, int64_t to_sequence_nr,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override {
    calls.push_back("AsyncDeleteMessagesTo");
    id = std::move(persistence_id);
    to = to_sequence_nr;
    this->fence = std::move(fence);
    this->done = std::move(done);
  }

  std::vector<std::string> calls;
  std::vector<AtomicWrite> writes;
  std::string id;
  int64_t from = -1;
  int64_t to = -1;
  int64_t max = -1;
  std::optional<WriteFence> fence;
  WriteCallback write_done;
  ReplayCallback on_event;
  DoneCallback done;
  HighestCallback highest_done;

 private:
  bool* destroyed_;
};

AtomicWrite Write(std::string id, int64_t sequence_nr) {
  PersistentRepr event;
  event.persistence_id = std::move(id);
  event.sequence_nr = sequence_nr;
  event.payload = serialization::Payload::Of(std::string("e"));
  AtomicWrite write;
  write.events.push_back(std::move(event));
  return write;
}

TEST(JournalWrapperTest, ForwardsEveryCallAndItsAnswer) {
  bool destroyed = false;
  auto owned = std::make_unique<RecordingJournal>(&destroyed);
  RecordingJournal& target = *owned;
  JournalWrapper wrapper(std::move(owned));

  std::optional<absl::Status> batch;
  std::vector<absl::Status> per_write;
  std::vector<AtomicWrite> writes;
  writes.push_back(Write("p", 1));
  writes.push_back(Write("q", 1));
  wrapper.AsyncWriteMessages(
      std::move(writes),
      [&](absl::Status status, std::vector<absl::Status> outcomes) {
        batch = status;
        per_write = std::move(outcomes);
      });
  ASSERT_EQ(target.calls.back(), "AsyncWriteMessages");
  ASSERT_EQ(target.writes.size(), 2u);
  EXPECT_EQ(target.writes[1].events.front().persistence_id, "q");
  std::move(target.write_done)(
      absl::OkStatus(), {absl::OkStatus(), absl::InvalidArgumentError("no")});
  ASSERT_TRUE(batch.has_value());
  EXPECT_OK(*batch);
  ASSERT_EQ(per_write.size(), 2u);
  EXPECT_EQ(per_write[1].code(), absl::StatusCode::kInvalidArgument);

  std::vector<int64_t> replayed;
  std::optional<absl::Status> replay_done;
  wrapper.AsyncReplayMessages(
      "p", 2, 7, 3,
      [&](const PersistentRepr& event) {
        replayed.push_back(event.sequence_nr);
      },
      [&](absl::Status status) { replay_done = status; });
  ASSERT_EQ(target.calls.back(), "AsyncReplayMessages");
  EXPECT_EQ(target.id, "p");
  EXPECT_EQ(target.from, 2);
  EXPECT_EQ(target.to, 7);
  EXPECT_EQ(target.max, 3);
  PersistentRepr event;
  event.sequence_nr = 2;
  target.on_event(event);
  std::move(target.done)(absl::DataLossError("bad record"));
  EXPECT_EQ(replayed, std::vector<int64_t>{2});
  ASSERT_TRUE(replay_done.has_value());
  EXPECT_EQ(replay_done->code(), absl::StatusCode::kDataLoss);

  std::optional<absl::StatusOr<int64_t>> highest;
  wrapper.AsyncReadHighestSequenceNr(
      "q", 4, [&](absl::StatusOr<int64_t> result) { highest = result; });
  ASSERT_EQ(target.calls.back(), "AsyncReadHighestSequenceNr");
  EXPECT_EQ(target.id, "q");
  EXPECT_EQ(target.from, 4);
  std::move(target.highest_done)(int64_t{9});
  ASSERT_TRUE(highest.has_value());
  ASSERT_OK(*highest);
  EXPECT_EQ(**highest, 9);

  std::optional<absl::Status> deleted;
  wrapper.AsyncDeleteMessagesTo("r", 5, WriteFence{"lease", "me", 3},
                                [&](absl::Status status) { deleted = status; });
  ASSERT_EQ(target.calls.back(), "AsyncDeleteMessagesTo");
  EXPECT_EQ(target.id, "r");
  EXPECT_EQ(target.to, 5);
  ASSERT_TRUE(target.fence.has_value());
  EXPECT_EQ(target.fence->lease, "lease");
  EXPECT_EQ(target.fence->owner, "me");
  EXPECT_EQ(target.fence->token, 3);
  std::move(target.done)(absl::UnavailableError("down"));
  ASSERT_TRUE(deleted.has_value());
  EXPECT_EQ(deleted->code(), absl::StatusCode::kUnavailable);

  EXPECT_EQ(target.calls.size(), 4u);
  EXPECT_FALSE(destroyed);
}

TEST(JournalWrapperTest, DestroysItsTarget) {
  bool destroyed = false;
  { JournalWrapper wrapper(std::make_unique<RecordingJournal>(&destroyed)); }
  EXPECT_TRUE(destroyed);
}

// A decorator overrides one call; the others reach the target unchanged.
class CountingWritesJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~CountingWritesJournal() override { DestroyTarget(); }

  void AsyncWriteMessages(std::vector<AtomicWrite> writes,
                          WriteCallback done) override {
    ++writes_seen;
    target().AsyncWriteMessages(std::move(writes), std::move(done));
  }

  int writes_seen = 0;
};

TEST(JournalWrapperTest, ADecoratorOverridesOnlyWhatItChanges) {
  bool destroyed = false;
  auto owned = std::make_unique<RecordingJournal>(&destroyed);
  RecordingJournal& target = *owned;
  {
    CountingWritesJournal journal(std::move(owned));
    journal.AsyncWriteMessages({},
                               [](absl::Status, std::vector<absl::Status>) {});
    journal.AsyncDeleteMessagesTo("p", 1, std::nullopt, [](absl::Status) {});
    EXPECT_EQ(journal.writes_seen, 1);
    EXPECT_EQ(target.calls,
              (std::vector<std::string>{"AsyncWriteMessages",
                                        "AsyncDeleteMessagesTo"}));
  }
  EXPECT_TRUE(destroyed);
}

class RecordingSnapshotStore final : public SnapshotStore {
 public:
  explicit RecordingSnapshotStore(bool* destroyed) : destroyed_(destroyed) {}
  ~RecordingSnapshotStore() override { *destroyed_ = true; }

  void AsyncLoad(std::string persistence_id, SnapshotSelectionCriteria criteria,
                 int64_t to_sequence_nr, LoadCallback done) override {
    calls.push_back("AsyncLoad");
    id = std::move(persistence_id);
    this->criteria = criteria;
    to = to_sequence_nr;
    load_done = std::move(done);
  }
  void AsyncSave(SnapshotMetadata metadata, serialization::Payload snapshot,
                 std::optional<WriteFence> fence, DoneCallback done) override {
    calls.push_back("AsyncSave");
    this->metadata = std::move(metadata);
    this->snapshot = std::move(snapshot);
    this->fence = std::move(fence);
    this->done = std::move(done);
  }
  void AsyncDelete(SnapshotMetadata metadata, std::optional<WriteFence> fence,
                   DoneCallback done) override {
    calls.push_back("AsyncDelete");
    this->metadata = std::move(metadata);
    this->fence = std::move(fence);
    this->done = std::move(done);
  }
  void AsyncDeleteByCriteria(std::string persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence,
                             DoneCallback done) override {
    calls.push_back("AsyncDeleteByCriteria");
    id = std::move(persistence_id);
    this->criteria = criteria;
    this->fence = std::move(fence);
    this->done = std::move(done);
  }

  std::vector<std::string> calls;
  std::string id;
  SnapshotSelectionCriteria criteria;
  int64_t to = -1;
  SnapshotMetadata metadata;
  serialization::Payload snapshot;
  std::optional<WriteFence> fence;
  LoadCallback load_done;
  DoneCallback done;

 private:
  bool* destroyed_;
};

TEST(SnapshotStoreWrapperTest, ForwardsEveryCallAndItsAnswer) {
  bool destroyed = false;
  auto owned = std::make_unique<RecordingSnapshotStore>(&destroyed);
  RecordingSnapshotStore& target = *owned;
  SnapshotStoreWrapper wrapper(std::move(owned));
  SnapshotSelectionCriteria criteria;
  criteria.max_sequence_nr = 8;
  criteria.min_timestamp = 3;

  std::optional<absl::StatusOr<LoadSnapshotResult>> loaded;
  wrapper.AsyncLoad("p", criteria, 6,
                    [&](absl::StatusOr<LoadSnapshotResult> result) {
                      loaded = std::move(result);
                    });
  ASSERT_EQ(target.calls.back(), "AsyncLoad");
  EXPECT_EQ(target.id, "p");
  EXPECT_EQ(target.criteria.max_sequence_nr, 8);
  EXPECT_EQ(target.criteria.min_timestamp, 3);
  EXPECT_EQ(target.to, 6);
  LoadSnapshotResult result;
  result.to_sequence_nr = 6;
  std::move(target.load_done)(std::move(result));
  ASSERT_TRUE(loaded.has_value());
  ASSERT_OK(*loaded);
  EXPECT_EQ((*loaded)->to_sequence_nr, 6);

  std::optional<absl::Status> saved;
  wrapper.AsyncSave(SnapshotMetadata{"q", 4, 100},
                    serialization::Payload::Of(std::string("state")),
                    WriteFence{"lease", "me", 4},
                    [&](absl::Status status) { saved = status; });
  ASSERT_EQ(target.calls.back(), "AsyncSave");
  EXPECT_EQ(target.metadata.persistence_id, "q");
  EXPECT_EQ(target.metadata.sequence_nr, 4);
  ASSERT_TRUE(target.fence.has_value());
  EXPECT_EQ(target.fence->token, 4);
  ASSERT_NE(target.snapshot.As<std::string>(), nullptr);
  EXPECT_EQ(*target.snapshot.As<std::string>(), "state");
  std::move(target.done)(absl::InvalidArgumentError("cannot serialize"));
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->code(), absl::StatusCode::kInvalidArgument);

  std::optional<absl::Status> deleted;
  wrapper.AsyncDelete(SnapshotMetadata{"r", 5, 0}, WriteFence{"lease", "me", 5},
                      [&](absl::Status status) { deleted = status; });
  ASSERT_EQ(target.calls.back(), "AsyncDelete");
  EXPECT_EQ(target.metadata.persistence_id, "r");
  EXPECT_EQ(target.metadata.sequence_nr, 5);
  ASSERT_TRUE(target.fence.has_value());
  EXPECT_EQ(target.fence->token, 5);
  std::move(target.done)(absl::OkStatus());
  ASSERT_TRUE(deleted.has_value());
  EXPECT_OK(*deleted);

  std::optional<absl::Status> deleted_by_criteria;
  wrapper.AsyncDeleteByCriteria(
      "s", SnapshotSelectionCriteria::None(), WriteFence{"lease", "me", 6},
      [&](absl::Status status) { deleted_by_criteria = status; });
  ASSERT_EQ(target.calls.back(), "AsyncDeleteByCriteria");
  EXPECT_EQ(target.id, "s");
  EXPECT_EQ(target.criteria.max_sequence_nr, 0);
  ASSERT_TRUE(target.fence.has_value());
  EXPECT_EQ(target.fence->token, 6);
  std::move(target.done)(absl::UnavailableError("down"));
  ASSERT_TRUE(deleted_by_criteria.has_value());
  EXPECT_EQ(deleted_by_criteria->code(), absl::StatusCode::kUnavailable);

  EXPECT_EQ(target.calls.size(), 4u);
  EXPECT_FALSE(destroyed);
}

TEST(SnapshotStoreWrapperTest, DestroysItsTarget) {
  bool destroyed = false;
  {
    SnapshotStoreWrapper wrapper(
        std::make_unique<RecordingSnapshotStore>(&destroyed));
  }
  EXPECT_TRUE(destroyed);
}

}  // namespace
}  // namespace cairn::persistence
