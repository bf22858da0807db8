// SnapshotStoreSpec: the Akka persistence TCK's snapshot store scenarios,
// then the threading contract of snapshot_store.h, then cases the TCK
// leaves out. Each case starts with "s-1" to "s-5" saved for pid_ at
// sequence numbers 11 to 15 (metadata_[0] to metadata_[4], tck.h).

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/storage/testing/callback_probe.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/tck.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::testing {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

SnapshotSelectionCriteria UpTo(int64_t max_sequence_nr,
                               int64_t max_timestamp = kMax) {
  SnapshotSelectionCriteria criteria;
  criteria.max_sequence_nr = max_sequence_nr;
  criteria.max_timestamp = max_timestamp;
  return criteria;
}

// The text of a loaded snapshot, "<none>" if there is none, or the error.
std::string Text(const absl::StatusOr<LoadSnapshotResult>& result) {
  if (!result.ok())
    return absl::StrCat("<error: ", result.status().ToString(), ">");
  if (!result->snapshot.has_value()) return "<none>";
  const std::string* text = result->snapshot->snapshot.As<std::string>();
  return text == nullptr ? "<not a string>" : *text;
}

void ExpectMetadata(const absl::StatusOr<LoadSnapshotResult>& result,
                    const SnapshotMetadata& expected) {
  ASSERT_OK(result);
  ASSERT_TRUE(result->snapshot.has_value());
  const SnapshotMetadata& metadata = result->snapshot->metadata;
  EXPECT_EQ(metadata.persistence_id, expected.persistence_id);
  EXPECT_EQ(metadata.sequence_nr, expected.sequence_nr);
  EXPECT_EQ(metadata.timestamp, expected.timestamp);
}

// --- Akka SnapshotStoreSpec -------------------------------------------------

TEST_P(SnapshotStoreSpec, DoesNotLoadASnapshotForAnUnknownPersistenceId) {
  absl::StatusOr<LoadSnapshotResult> result = LoadSnapshot(
      *store_, "non-existing-pid", SnapshotSelectionCriteria::Latest(), kMax);
  ASSERT_OK(result);
  EXPECT_FALSE(result->snapshot.has_value());
  EXPECT_EQ(result->to_sequence_nr, kMax);
}

TEST_P(SnapshotStoreSpec, DoesNotLoadASnapshotGivenNonMatchingTimestamps) {
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, UpTo(kMax, 100), kMax);
  EXPECT_EQ(Text(result), "<none>");
}

TEST_P(SnapshotStoreSpec, DoesNotLoadASnapshotGivenNonMatchingSequenceNrs) {
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, UpTo(7), kMax);
  EXPECT_EQ(Text(result), "<none>");
  ASSERT_OK(result);
  EXPECT_EQ(result->to_sequence_nr, kMax);

  result = LoadSnapshot(*store_, pid_, SnapshotSelectionCriteria::Latest(), 7);
  EXPECT_EQ(Text(result), "<none>");
  ASSERT_OK(result);
  EXPECT_EQ(result->to_sequence_nr, 7);
}

TEST_P(SnapshotStoreSpec, LoadsTheMostRecentSnapshot) {
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, SnapshotSelectionCriteria::Latest(), kMax);
  EXPECT_EQ(Text(result), "s-5");
  ASSERT_NO_FATAL_FAILURE(ExpectMetadata(result, metadata_[4]));
  EXPECT_EQ(result->to_sequence_nr, kMax);
}

TEST_P(SnapshotStoreSpec, LoadsTheMostRecentSnapshotUpToASequenceNr) {
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, UpTo(13), kMax);
  EXPECT_EQ(Text(result), "s-3");
  ASSERT_NO_FATAL_FAILURE(ExpectMetadata(result, metadata_[2]));
  EXPECT_EQ(result->to_sequence_nr, kMax);

  result = LoadSnapshot(*store_, pid_, SnapshotSelectionCriteria::Latest(), 13);
  EXPECT_EQ(Text(result), "s-3");
  ASSERT_NO_FATAL_FAILURE(ExpectMetadata(result, metadata_[2]));
  EXPECT_EQ(result->to_sequence_nr, 13);
}

TEST_P(SnapshotStoreSpec, LoadsTheMostRecentSnapshotUpToASequenceNrAndTime) {
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, UpTo(13, metadata_[1].timestamp), kMax);
  EXPECT_EQ(Text(result), "s-2");
  ExpectMetadata(result, metadata_[1]);

  result = LoadSnapshot(*store_, pid_, UpTo(kMax, metadata_[1].timestamp), 13);
  EXPECT_EQ(Text(result), "s-2");
  ASSERT_OK(result);
  EXPECT_EQ(result->to_sequence_nr, 13);
}

TEST_P(SnapshotStoreSpec, DeletesASingleSnapshotIdentifiedBySequenceNr) {
  SnapshotMetadata md = metadata_[2];
  md.timestamp = 0;  // a single delete does not compare timestamps
  absl::Status deleted = DeleteSnapshot(*store_, md);
  ASSERT_OK(deleted);
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, UpTo(md.sequence_nr), kMax);
  EXPECT_EQ(Text(result), "s-2");
  ExpectMetadata(result, metadata_[1]);
}

TEST_P(SnapshotStoreSpec, DeletesAllSnapshotsMatchingUpperBounds) {
  const SnapshotMetadata& md = metadata_[2];
  absl::Status deleted =
      DeleteSnapshots(*store_, pid_, UpTo(md.sequence_nr, md.timestamp));
  ASSERT_OK(deleted);
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, UpTo(md.sequence_nr, md.timestamp),
                              kMax)),
            "<none>");
  absl::StatusOr<LoadSnapshotResult> result = LoadSnapshot(
      *store_, pid_, UpTo(metadata_[3].sequence_nr, metadata_[3].timestamp),
      kMax);
  EXPECT_EQ(Text(result), "s-4");
  ExpectMetadata(result, metadata_[3]);
}

TEST_P(SnapshotStoreSpec, DoesNotDeleteSnapshotsWithNonMatchingTimestamps) {
  const SnapshotMetadata& md = metadata_[3];
  absl::Status deleted =
      DeleteSnapshots(*store_, pid_, UpTo(md.sequence_nr, md.timestamp - 1));
  ASSERT_OK(deleted);
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, UpTo(md.sequence_nr, md.timestamp), kMax);
  EXPECT_EQ(Text(result), "s-4");
  ExpectMetadata(result, md);
  // Those below the timestamp bound are gone.
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, UpTo(md.sequence_nr - 1), kMax)),
            "<none>");
}

TEST_P(SnapshotStoreSpec, OverwritesASnapshotWithTheSameSequenceNr) {
  SnapshotMetadata md = metadata_[4];
  md.timestamp += 1;
  absl::Status saved = SaveSnapshot(
      *store_, md, serialization::Payload::Of(std::string("s-5-modified")));
  ASSERT_OK(saved);
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, UpTo(md.sequence_nr), kMax);
  EXPECT_EQ(Text(result), "s-5-modified");
  ExpectMetadata(result, md);
}

TEST_P(SnapshotStoreSpec, SavesABiggerSnapshot) {
  std::string big(10000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  const SnapshotMetadata md{pid_, 100, 123456};
  absl::Status saved =
      SaveSnapshot(*store_, md, serialization::Payload::Of(big));
  ASSERT_OK(saved);
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, SnapshotSelectionCriteria::Latest(), kMax);
  EXPECT_EQ(Text(result), big);
  ExpectMetadata(result, md);
}

// Akka's "serialize metadata" and payload, with user types.
TEST_P(SnapshotStoreSpec, RoundTripsThePayloadAndMetadata) {
  TestEventT value;
  value.name = "state";
  value.value = 1LL << 40;
  value.labels = {"l1", "l2"};
  const SnapshotMetadata flat{"p-2", 3, -17};
  ASSERT_OK(SaveSnapshot(*store_, flat, serialization::Payload::Of(value)));
  const SnapshotMetadata amount{"p-3", 0, kMax};
  ASSERT_OK(
      SaveSnapshot(*store_, amount, serialization::Payload::Of(Amount{99})));

  // Timestamps are stored as given, negative ones too.
  SnapshotSelectionCriteria any_time = SnapshotSelectionCriteria::Latest();
  any_time.min_timestamp = std::numeric_limits<int64_t>::min();
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, "p-2", any_time, kMax);
  ASSERT_NO_FATAL_FAILURE(ExpectMetadata(result, flat));
  const TestEventT* got = result->snapshot->snapshot.As<TestEventT>();
  ASSERT_NE(got, nullptr) << result->snapshot->snapshot.TypeName();
  EXPECT_EQ(got->name, "state");
  EXPECT_EQ(got->value, 1LL << 40);
  EXPECT_THAT(got->labels, ::testing::ElementsAre("l1", "l2"));

  result = LoadSnapshot(*store_, "p-3", any_time, kMax);
  ASSERT_NO_FATAL_FAILURE(ExpectMetadata(result, amount));
  ASSERT_NE(result->snapshot->snapshot.As<Amount>(), nullptr);
  EXPECT_EQ(*result->snapshot->snapshot.As<Amount>(), Amount{99});
}

// --- The threading contract (snapshot_store.h) ------------------------------

TEST_P(SnapshotStoreSpec, RunsCallbacksOnAPluginThreadNotTheCallers) {
  auto probe = std::make_shared<CallbackProbe>();
  store_->AsyncSave(
      {pid_, 20, 1}, serialization::Payload::Of(std::string("s-20")),
      std::nullopt,
      [probe](absl::Status status) { probe->Ran(0, status.ok()); });
  store_->AsyncLoad(pid_, SnapshotSelectionCriteria::Latest(), kMax,
                    [probe](absl::StatusOr<LoadSnapshotResult> result) {
                      probe->Ran(1, result.ok());
                    });
  store_->AsyncDelete(
      {pid_, 20, 0}, std::nullopt,
      [probe](absl::Status status) { probe->Ran(2, status.ok()); });
  store_->AsyncDeleteByCriteria(
      pid_, UpTo(11), std::nullopt,
      [probe](absl::Status status) { probe->Ran(3, status.ok()); });
  // A rejected save is completed the same way.
  store_->AsyncSave(
      {pid_, 21, 1}, serialization::Payload::Of(NotSerializable{}),
      std::nullopt,
      [probe](absl::Status status) { probe->Ran(4, !status.ok()); });
  ASSERT_TRUE(probe->WaitFor(5)) << probe->ran();
  EXPECT_EQ(probe->on_caller(), 0);
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(probe->order(), (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST_P(SnapshotStoreSpec, LetsACallbackCallTheStoreAgain) {
  auto probe = std::make_shared<CallbackProbe>();
  SnapshotStore* store = store_.get();
  const std::string pid = pid_;
  store->AsyncSave(
      {pid, 20, 1}, serialization::Payload::Of(std::string("s-20")),
      std::nullopt, [probe, store, pid](absl::Status status) {
        probe->Ran(0, status.ok());
        store->AsyncLoad(
            pid, SnapshotSelectionCriteria::Latest(), kMax,
            [probe, store, pid](absl::StatusOr<LoadSnapshotResult> result) {
              probe->Ran(1, Text(result) == "s-20");
              store->AsyncDelete(
                  {pid, 20, 0}, std::nullopt,
                  [probe](absl::Status status) { probe->Ran(2, status.ok()); });
            });
      });
  ASSERT_TRUE(probe->WaitFor(3)) << probe->ran();
  EXPECT_EQ(probe->failed(), 0);
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_,
                              SnapshotSelectionCriteria::Latest(), kMax)),
            "s-5");
}

TEST_P(SnapshotStoreSpec, DestructorCompletesSubmittedOperations) {
  auto probe = std::make_shared<CallbackProbe>();
  constexpr int kSaves = 30;
  for (int i = 0; i < kSaves; ++i) {
    store_->AsyncSave(
        {pid_, 100 + i, 5000 + i},
        serialization::Payload::Of(absl::StrCat("t-", i)), std::nullopt,
        [probe, i](absl::Status status) { probe->Ran(i, status.ok()); });
  }
  store_->AsyncLoad(pid_, SnapshotSelectionCriteria::Latest(), kMax,
                    [probe](absl::StatusOr<LoadSnapshotResult> result) {
                      probe->Ran(kSaves, result.ok());
                    });
  store_->AsyncDeleteByCriteria(
      pid_, UpTo(15), std::nullopt,
      [probe](absl::Status status) { probe->Ran(kSaves + 1, status.ok()); });
  store_.reset();
  EXPECT_EQ(probe->ran(), kSaves + 2u);
  EXPECT_EQ(probe->failed(), 0);

  if (!GetParam().persistent) return;
  store_ = NewSnapshotStore();
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_,
                              SnapshotSelectionCriteria::Latest(), kMax)),
            absl::StrCat("t-", kSaves - 1));
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, UpTo(99), kMax)), "<none>");
}

// --- Beyond the TCK
// -----------------------------------------------------------

TEST_P(SnapshotStoreSpec, RejectsANonSerializableSnapshotAndKeepsTheOthers) {
  absl::Status saved = SaveSnapshot(
      *store_, {pid_, 16, 9999}, serialization::Payload::Of(NotSerializable{}));
  EXPECT_EQ(saved.code(), absl::StatusCode::kInvalidArgument) << saved;
  EXPECT_THAT(std::string(saved.message()),
              HasSubstr("persistence id 'p-1', sequence nr 16"));
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_,
                              SnapshotSelectionCriteria::Latest(), kMax)),
            "s-5");
}

TEST_P(SnapshotStoreSpec,
       RejectsASnapshotWithoutAnIdOrWithANegativeSequenceNr) {
  EXPECT_EQ(SaveSnapshot(*store_, {"", 1, 1},
                         serialization::Payload::Of(std::string("x")))
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SaveSnapshot(*store_, {pid_, -1, 1},
                         serialization::Payload::Of(std::string("x")))
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_,
                              SnapshotSelectionCriteria::Latest(), kMax)),
            "s-5");
}

TEST_P(SnapshotStoreSpec, HonoursLowerBounds) {
  SnapshotSelectionCriteria criteria = SnapshotSelectionCriteria::Latest();
  criteria.max_sequence_nr = 14;
  criteria.min_sequence_nr = 14;
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, criteria, kMax)), "s-4");
  criteria.min_sequence_nr = 15;
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, criteria, kMax)), "<none>");

  criteria = SnapshotSelectionCriteria::Latest();
  criteria.min_timestamp = metadata_[2].timestamp;
  criteria.max_timestamp = metadata_[3].timestamp;
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, criteria, kMax)), "s-4");

  // Deleting by criteria honours them too.
  criteria = SnapshotSelectionCriteria::Latest();
  criteria.min_sequence_nr = 12;
  criteria.max_sequence_nr = 14;
  ASSERT_OK(DeleteSnapshots(*store_, pid_, criteria));
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, UpTo(14), kMax)), "s-1");
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, UpTo(kMax), kMax)), "s-5");
}

TEST_P(SnapshotStoreSpec, SelectsNothingWithTheNoneCriteria) {
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_, SnapshotSelectionCriteria::None(),
                              kMax)),
            "<none>");
  ASSERT_OK(DeleteSnapshots(*store_, pid_, SnapshotSelectionCriteria::None()));
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_,
                              SnapshotSelectionCriteria::Latest(), kMax)),
            "s-5");
}

TEST_P(SnapshotStoreSpec, DeletingAMissingSnapshotIsOk) {
  EXPECT_OK(DeleteSnapshot(*store_, {pid_, 12345, 0}));
  EXPECT_OK(DeleteSnapshot(*store_, {"non-existing-pid", 1, 0}));
  EXPECT_OK(DeleteSnapshots(*store_, "non-existing-pid",
                            SnapshotSelectionCriteria::Latest()));
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_,
                              SnapshotSelectionCriteria::Latest(), kMax)),
            "s-5");
}

TEST_P(SnapshotStoreSpec, KeepsStreamsApart) {
  std::vector<std::string> ids = {"a", "ab", "p-1x", "p-"};
  if (GetParam().ids_may_hold_nul) ids.push_back(std::string("a\0b", 3));
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_OK(SaveSnapshot(*store_, {ids[i], 1, 1},
                           serialization::Payload::Of(absl::StrCat("id-", i))));
  }
  ASSERT_OK(
      DeleteSnapshots(*store_, "ab", SnapshotSelectionCriteria::Latest()));
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(Text(LoadSnapshot(*store_, ids[i],
                                SnapshotSelectionCriteria::Latest(), kMax)),
              ids[i] == "ab" ? "<none>" : absl::StrCat("id-", i));
  }
  EXPECT_EQ(Text(LoadSnapshot(*store_, pid_,
                              SnapshotSelectionCriteria::Latest(), kMax)),
            "s-5");
}

// snapshot_store.h: a match that cannot be read is passed over for the next
// older one (Akka's local snapshot store), and reported, naming the
// persistence id and sequence number, newest first.
TEST_P(SnapshotStoreSpec, FallsBackPastSnapshotsThatCannotBeDecoded) {
  ASSERT_OK(SaveSnapshot(*store_, {pid_, 16, 9000},
                         serialization::Payload::Of(FailsToDecode{})));
  ASSERT_OK(SaveSnapshot(*store_, {pid_, 17, 9001},
                         serialization::Payload::Of(FailsToDecode{})));
  absl::StatusOr<LoadSnapshotResult> result =
      LoadSnapshot(*store_, pid_, SnapshotSelectionCriteria::Latest(), kMax);
  EXPECT_EQ(Text(result), "s-5");
  ExpectMetadata(result, metadata_[4]);
  ASSERT_OK(result);
  ASSERT_EQ(result->unreadable.size(), 2u);
  EXPECT_EQ(result->unreadable[0].code(), absl::StatusCode::kDataLoss)
      << result->unreadable[0];
  EXPECT_THAT(std::string(result->unreadable[0].message()),
              HasSubstr("persistence id 'p-1', sequence nr 17"));
  EXPECT_THAT(std::string(result->unreadable[1].message()),
              HasSubstr("persistence id 'p-1', sequence nr 16"));

  // A load that does not select them reports nothing.
  result = LoadSnapshot(*store_, pid_, UpTo(15), kMax);
  EXPECT_EQ(Text(result), "s-5");
  ASSERT_OK(result);
  EXPECT_TRUE(result->unreadable.empty());

  // When none can be read: no snapshot, and every one reported.
  ASSERT_OK(SaveSnapshot(*store_, {"p-2", 3, 9002},
                         serialization::Payload::Of(FailsToDecode{})));
  result =
      LoadSnapshot(*store_, "p-2", SnapshotSelectionCriteria::Latest(), kMax);
  EXPECT_EQ(Text(result), "<none>");
  ASSERT_OK(result);
  ASSERT_EQ(result->unreadable.size(), 1u);
  EXPECT_THAT(std::string(result->unreadable[0].message()),
              HasSubstr("persistence id 'p-2', sequence nr 3"));

  // They can be deleted like any other (retention does).
  ASSERT_OK(DeleteSnapshots(*store_, pid_, UpTo(17)));
  result =
      LoadSnapshot(*store_, pid_, SnapshotSelectionCriteria::Latest(), kMax);
  EXPECT_EQ(Text(result), "<none>");
  ASSERT_OK(result);
  EXPECT_TRUE(result->unreadable.empty());
}

// Loads submitted together (a storm of recoveries: a plugin may answer
// them in one statement) each get their own answer, by their own criteria,
// and see the operations submitted before them (submission order).
TEST_P(SnapshotStoreSpec, LoadsSubmittedTogetherEachGetTheirOwnAnswer) {
  // "deep": one readable snapshot under more unreadable ones than a load
  // might read at first.
  ASSERT_OK(SaveSnapshot(*store_, {"deep", 1, 1},
                         serialization::Payload::Of(std::string("d-1"))));
  for (int n = 2; n <= 9; ++n) {
    ASSERT_OK(SaveSnapshot(*store_, {"deep", n, n},
                           serialization::Payload::Of(FailsToDecode{})));
  }
  struct Load {
    std::string id;
    SnapshotSelectionCriteria criteria;
    std::string expected;
  };
  SnapshotSelectionCriteria from_13 = SnapshotSelectionCriteria::Latest();
  from_13.min_sequence_nr = 13;
  const std::vector<Load> loads = {
      {pid_, SnapshotSelectionCriteria::Latest(), "s-5"},
      {pid_, UpTo(13), "s-3"},
      {pid_, UpTo(kMax, metadata_[1].timestamp), "s-2"},
      {pid_, SnapshotSelectionCriteria::None(), "<none>"},
      {"unknown", SnapshotSelectionCriteria::Latest(), "<none>"},
      {"deep", SnapshotSelectionCriteria::Latest(), "d-1"},
      {pid_, from_13, "s-5"},
      {"saved-before", SnapshotSelectionCriteria::Latest(), "b-1"},
      {pid_, UpTo(10), "<none>"},
  };
  auto probe = std::make_shared<CallbackProbe>();
  std::vector<std::string> got(loads.size());
  std::vector<size_t> unreadable(loads.size());
  store_->AsyncSave({"saved-before", 1, 1},
                    serialization::Payload::Of(std::string("b-1")),
                    std::nullopt, [](absl::Status) {});
  for (size_t i = 0; i < loads.size(); ++i) {
    store_->AsyncLoad(loads[i].id, loads[i].criteria, kMax,
                      [&got, &unreadable, probe,
                       i](absl::StatusOr<LoadSnapshotResult> result) {
                        got[i] = Text(result);
                        if (result.ok())
                          unreadable[i] = result->unreadable.size();
                        probe->Ran(static_cast<int>(i), result.ok());
                      });
  }
  ASSERT_TRUE(probe->WaitFor(loads.size())) << probe->ran();
  for (size_t i = 0; i < loads.size(); ++i) {
    EXPECT_EQ(got[i], loads[i].expected)
        << "load " << i << " of " << loads[i].id;
  }
  EXPECT_EQ(unreadable[5], 8u);
  EXPECT_EQ(probe->failed(), 0);
}

// A plugin that cannot store a NUL in an id refuses it, rather than
// reading or writing another id's snapshots ("a").
TEST_P(SnapshotStoreSpec, RefusesAnIdItCannotHold) {
  if (GetParam().ids_may_hold_nul) GTEST_SKIP() << "ids may hold NUL here";
  const std::string id("a\0b", 3);
  ASSERT_OK(SaveSnapshot(*store_, {"a", 1, 1},
                         serialization::Payload::Of(std::string("a"))));
  EXPECT_EQ(SaveSnapshot(*store_, {id, 2, 1},
                         serialization::Payload::Of(std::string("x")))
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LoadSnapshot(*store_, id, SnapshotSelectionCriteria::Latest(), kMax)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      DeleteSnapshots(*store_, id, SnapshotSelectionCriteria::Latest()).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Text(LoadSnapshot(*store_, "a", SnapshotSelectionCriteria::Latest(),
                              kMax)),
            "a");
}

}  // namespace
}  // namespace cairn::persistence::testing
