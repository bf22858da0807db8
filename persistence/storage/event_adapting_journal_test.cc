// EventAdaptingJournal over every plugin: what ToJournal returns is stored
// with Manifest's value; a replay delivers what FromJournal makes of each
// stored event (none, one or several, with its sequence number); failures
// on either side are a rejection or a failed replay that name the event.

#include "persistence/storage/event_adapting_journal.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/inmem/testing/plugins_under_test.h"
#include "persistence/rocksdb/testing/plugins_under_test.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/tagged.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using testing::Amount;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::PluginUnderTest;
using testing::ReplayMessages;
using testing::ReplayOutcome;
using testing::SequenceNrs;
using testing::Single;
using testing::Texts;
using testing::WriteMessages;
using testing::WriteOutcome;

constexpr int64_t kMax = kMaxSequenceNr;

// Stores text as "v2:<text>" under manifest "v2". Reads "v2:" back, and
// what older code stored (manifest "" or "v1"): "split:a|b" becomes the
// events a and b, "obsolete" none, "bad" is an error.
class TextAdapter final : public EventAdapter {
 public:
  std::string Manifest(const serialization::Payload&) const override {
    return "v2";
  }
  absl::StatusOr<serialization::Payload> ToJournal(
      const serialization::Payload& event) const override {
    return serialization::Payload::Of("v2:" + *event.As<std::string>());
  }
  absl::StatusOr<EventSeq> FromJournal(
      const serialization::Payload& event,
      std::string_view manifest) const override {
    const std::string& text = *event.As<std::string>();
    if (manifest == "v2")
      return EventSeq{serialization::Payload::Of(text.substr(3))};
    if (absl::StartsWith(text, "split:")) {
      EventSeq events;
      for (std::string part :
           std::vector<std::string>(absl::StrSplit(text.substr(6), '|'))) {
        events.push_back(serialization::Payload::Of(std::move(part)));
      }
      return events;
    }
    if (text == "obsolete") return EventSeq{};
    if (text == "bad") return absl::DataLossError("cannot read 'bad'");
    return EventSeq{event};
  }
};

// Refuses to store a negative amount and tags the others (Akka's Tagged
// from a write adapter); reads with the defaults.
class AmountAdapter final : public EventAdapter {
 public:
  absl::StatusOr<serialization::Payload> ToJournal(
      const serialization::Payload& event) const override {
    if (event.As<Amount>()->value < 0) {
      return absl::InvalidArgumentError("negative amount");
    }
    return serialization::Payload::Of(Tagged{event, {"amounts"}});
  }
};

// Holds every replay until it is destroyed, then passes them on before
// its target closes: replays that complete while the journals close.
class ReplaysHeldToTheEnd final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~ReplaysHeldToTheEnd() override {
    for (Held& held : held_) {
      target().AsyncReplayMessages(std::move(held.persistence_id), held.from,
                                   held.to, held.max, std::move(held.on_event),
                                   std::move(held.done));
    }
    DestroyTarget();
  }

  void AsyncReplayMessages(std::string persistence_id, int64_t from, int64_t to,
                           int64_t max, ReplayCallback on_event,
                           DoneCallback done) override {
    base::MutexLock lock(&mu_);
    held_.push_back({std::move(persistence_id), from, to, max,
                     std::move(on_event), std::move(done)});
  }

 private:
  struct Held {
    std::string persistence_id;
    int64_t from, to, max;
    ReplayCallback on_event;
    DoneCallback done;
  };
  base::Mutex mu_;
  std::vector<Held> held_ ABSL_GUARDED_BY(mu_);
};

class EventAdaptingJournalTest
    : public ::testing::TestWithParam<PluginUnderTest> {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    ASSERT_OK(GetParam().register_plugins(plugins_, dir_->path()));
    absl::StatusOr<std::unique_ptr<Journal>> inner = plugins_.CreateJournal(
        GetParam().journal_plugin_id, {testing::NewTestSerialization()});
    ASSERT_OK(inner);
    auto adapters = std::make_shared<EventAdapters>(*TextAdapters());
    ASSERT_OK(adapters->Bind<Amount>(std::make_shared<AmountAdapter>()));
    inner_ = inner->get();
    journal_ = std::make_unique<EventAdaptingJournal>(*std::move(inner),
                                                      std::move(adapters));
  }

  // Writes `texts` as events 1, 2, ... of `pid` as code without adapters
  // did, with `manifest` as their adapter manifest.
  void StoreUnadapted(const std::string& pid,
                      const std::vector<std::string>& texts,
                      const std::string& manifest) {
    StoreUnadapted(*inner_, pid, texts, manifest);
  }
  static void StoreUnadapted(Journal& journal, const std::string& pid,
                             const std::vector<std::string>& texts,
                             const std::string& manifest) {
    std::vector<AtomicWrite> writes;
    for (size_t i = 0; i < texts.size(); ++i) {
      writes.push_back(Single(pid, static_cast<int64_t>(i) + 1,
                              serialization::Payload::Of(texts[i])));
      writes.back().events[0].adapter_manifest = manifest;
    }
    WriteOutcome outcome = WriteMessages(journal, std::move(writes));
    ASSERT_OK(outcome.batch);
  }

  static std::shared_ptr<const EventAdapters> TextAdapters() {
    auto adapters = std::make_shared<EventAdapters>();
    EXPECT_OK(adapters->Bind<std::string>(std::make_shared<TextAdapter>()));
    return adapters;
  }

  std::optional<testing::TempDir> dir_;
  PluginRegistry plugins_;
  Journal* inner_ = nullptr;  // owned by journal_
  std::unique_ptr<EventAdaptingJournal> journal_;
};

TEST_P(EventAdaptingJournalTest, StoresWhatToJournalReturnsUnderItsManifest) {
  WriteOutcome outcome = WriteMessages(
      *journal_,
      {Single("a", 1, serialization::Payload::Of(std::string("x"))),
       Single("a", 2, serialization::Payload::Of(std::string("y")))});
  ASSERT_OK(outcome.batch);
  ReplayOutcome stored = ReplayMessages(*inner_, "a", 1, kMax, kMax);
  ASSERT_OK(stored.status);
  EXPECT_THAT(Texts(stored.events), ElementsAre("v2:x", "v2:y"));
  ASSERT_EQ(stored.events.size(), 2u);
  EXPECT_EQ(stored.events[0].adapter_manifest, "v2");
  ReplayOutcome adapted = ReplayMessages(*journal_, "a", 1, kMax, kMax);
  ASSERT_OK(adapted.status);
  EXPECT_THAT(Texts(adapted.events), ElementsAre("x", "y"));
}

TEST_P(EventAdaptingJournalTest, ReplaysOneStoredEventAsNoneOneOrSeveral) {
  StoreUnadapted("a", {"split:p|q", "obsolete", "kept", "split:r|s|t"}, "v1");
  ReplayOutcome replay = ReplayMessages(*journal_, "a", 1, kMax, kMax);
  ASSERT_OK(replay.status);
  EXPECT_THAT(Texts(replay.events),
              ElementsAre("p", "q", "kept", "r", "s", "t"));
  EXPECT_THAT(SequenceNrs(replay.events), ElementsAre(1, 1, 3, 4, 4, 4));
  // `max` counts delivered events: the split one alone makes two.
  ReplayOutcome two = ReplayMessages(*journal_, "a", 1, kMax, 2);
  ASSERT_OK(two.status);
  EXPECT_THAT(Texts(two.events), ElementsAre("p", "q"));
  // Every part keeps the stored event's envelope.
  EXPECT_EQ(replay.events[1].persistence_id, "a");
  EXPECT_EQ(replay.events[1].writer_uuid, replay.events[0].writer_uuid);
}

// A caller that pages (a recovery) takes a page shorter than it asked for
// as the stream's end, and goes on after a page's last event: a page reads
// on past dropped events and delivers its last stored event whole.
TEST_P(EventAdaptingJournalTest, APageEndsShortOnlyAtTheStreamsEnd) {
  StoreUnadapted("a", {"split:p|q|r", "obsolete", "obsolete", "kept", "x", "y"},
                 "v1");
  struct Case {
    int64_t from;
    int64_t max;
    std::vector<std::string> texts;
    std::vector<int64_t> sequence_nrs;
  };
  for (const Case& c :
       {Case{1, 2, {"p", "q", "r"}, {1, 1, 1}}, Case{2, 1, {"kept"}, {4}},
        Case{2, 2, {"kept", "x"}, {4, 5}},
        Case{2, 5, {"kept", "x", "y"}, {4, 5, 6}}, Case{6, 2, {"y"}, {6}}}) {
    SCOPED_TRACE(::testing::Message() << "from " << c.from << " max " << c.max);
    ReplayOutcome page = ReplayMessages(*journal_, "a", c.from, kMax, c.max);
    ASSERT_OK(page.status);
    EXPECT_EQ(Texts(page.events), c.texts);
    EXPECT_EQ(SequenceNrs(page.events), c.sequence_nrs);
  }
  // A split event reaching `max` comes whole, and nothing after it.
  StoreUnadapted("b", {"split:p|q|r", "kept"}, "v1");
  ReplayOutcome split = ReplayMessages(*journal_, "b", 1, kMax, 2);
  ASSERT_OK(split.status);
  EXPECT_THAT(Texts(split.events), ElementsAre("p", "q", "r"));
  // Only dropped events up to the bound: an empty page, the end.
  ReplayOutcome none = ReplayMessages(*journal_, "a", 2, 3, 1);
  ASSERT_OK(none.status);
  EXPECT_THAT(none.events, IsEmpty());
}

// A recovery's first page, where the journal reads it, is paged the same.
TEST_P(EventAdaptingJournalTest, ARecoveryStartsFirstPageReadsOnPastDrops) {
  StoreUnadapted("a", {"obsolete", "obsolete", "split:p|q", "x", "y"}, "v1");
  absl::StatusOr<std::unique_ptr<SnapshotStore>> snapshots =
      plugins_.CreateSnapshotStore(GetParam().snapshot_store_plugin_id,
                                   {testing::NewTestSerialization()});
  ASSERT_OK(snapshots);
  for (int64_t page_max : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << "page_max " << page_max);
    RecoveryStartRequest request;
    request.persistence_id = "a";
    request.snapshots = snapshots->get();
    request.page_max = page_max;
    testing::RecoveryStartOutcome outcome =
        testing::StartRecovery(*journal_, std::move(request));
    ASSERT_OK(outcome.start.snapshot);
    ASSERT_OK(outcome.start.highest);
    EXPECT_EQ(*outcome.start.highest, 5);
    // RocksDB with its own snapshot store reads the page; the others leave
    // it to the caller.
    ASSERT_EQ(outcome.start.replay.has_value(),
              GetParam().name == testing::RocksDbPlugins().name);
    if (!outcome.start.replay.has_value()) continue;
    ASSERT_OK(*outcome.start.replay);
    // The split event reaches 1 and 2 whole; 3 reads on for x.
    if (page_max <= 2) {
      EXPECT_THAT(Texts(outcome.events), ElementsAre("p", "q"));
    } else {
      EXPECT_THAT(Texts(outcome.events), ElementsAre("p", "q", "x"));
    }
  }
}

// A replay that would read on past dropped events when the journal closes
// ends with a reason instead of reading a closed target.
TEST_P(EventAdaptingJournalTest,
       AReplayReadingOnAsTheJournalClosesIsCancelled) {
  journal_.reset();  // a store has one journal at a time
  inner_ = nullptr;
  absl::StatusOr<std::unique_ptr<Journal>> inner = plugins_.CreateJournal(
      GetParam().journal_plugin_id, {testing::NewTestSerialization()});
  ASSERT_OK(inner);
  StoreUnadapted(**inner, "b", {"obsolete", "kept"}, "v1");
  auto closing = std::make_unique<EventAdaptingJournal>(
      std::make_unique<ReplaysHeldToTheEnd>(*std::move(inner)), TextAdapters());
  std::vector<std::string> texts;
  absl::Status status = absl::UnknownError("not done");
  closing->AsyncReplayMessages(
      "b", 1, kMax, 1,
      [&texts](const PersistentRepr& e) {
        texts.push_back(*e.payload.As<std::string>());
      },
      [&status](absl::Status s) { status = base::OwnCopy(s); });
  closing.reset();  // completes the replay
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("persistence id 'b'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("after sequence nr 1"));
  EXPECT_THAT(texts, IsEmpty());
}

TEST_P(EventAdaptingJournalTest, QueriesDeliverWhatTheAdaptersMake) {
  StoreUnadapted("a", {"split:p|q|r", "obsolete", "kept", "bad"}, "v1");
  absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
      journal_->NewReadJournal();
  ASSERT_OK(queries);
  // Batches of two: the split event's third part waits for the next Pull.
  auto stream = (*queries)->CurrentEventsByPersistenceId("a", 1, 3);
  std::vector<std::size_t> sizes;
  absl::StatusOr<std::vector<EventEnvelope>> all =
      testing::PullAll(*stream, 2, &sizes);
  ASSERT_OK(all);
  std::vector<std::string> texts;
  std::vector<int64_t> offsets;
  for (const EventEnvelope& e : *all) {
    texts.push_back(*e.event.As<std::string>());
    offsets.push_back(e.offset);
  }
  EXPECT_THAT(texts, ElementsAre("p", "q", "r", "kept"));
  EXPECT_THAT(offsets, ElementsAre(1, 1, 1, 3));
  for (std::size_t size : sizes) EXPECT_LE(size, 2u);
  // A FromJournal failure fails the query, naming the event.
  auto failing = (*queries)->CurrentEventsByPersistenceId("a", 1, kMax);
  all = testing::PullAll(*failing, 10);
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(std::string(all.status().message()),
              HasSubstr("persistence id 'a', sequence nr 4"));
}

TEST_P(EventAdaptingJournalTest,
       AFromJournalFailureEndsTheReplayNamingTheEvent) {
  StoreUnadapted("a", {"one", "bad", "three"}, "v1");
  ReplayOutcome replay = ReplayMessages(*journal_, "a", 1, kMax, kMax);
  EXPECT_EQ(replay.status.code(), absl::StatusCode::kDataLoss) << replay.status;
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("persistence id 'a', sequence nr 2"));
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("adapter manifest 'v1'"));
  EXPECT_THAT(std::string(replay.status.message()),
              HasSubstr("cannot read 'bad'"));
  // Nothing after the failed event is delivered.
  EXPECT_THAT(Texts(replay.events), ElementsAre("one"));
}

TEST_P(EventAdaptingJournalTest, AToJournalFailureRejectsThatWriteOnly) {
  WriteOutcome outcome = WriteMessages(
      *journal_, {Single("a", 1, serialization::Payload::Of(Amount{-5})),
                  Single("b", 1, serialization::Payload::Of(Amount{5}))});
  ASSERT_OK(outcome.batch);
  ASSERT_EQ(outcome.per_write.size(), 2u);
  EXPECT_EQ(outcome.per_write[0].code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(outcome.per_write[0].message()),
              HasSubstr("persistence id 'a', sequence nr 1"));
  EXPECT_THAT(std::string(outcome.per_write[0].message()),
              HasSubstr("negative amount"));
  EXPECT_OK(outcome.per_write[1]);
  ReplayOutcome a = ReplayMessages(*journal_, "a", 1, kMax, kMax);
  ASSERT_OK(a.status);
  EXPECT_THAT(a.events, IsEmpty());
  // The rejected write's number counts as used: the writer goes on with 2.
  ASSERT_OK(
      WriteMessages(*journal_,
                    {Single("a", 2, serialization::Payload::Of(Amount{7}))})
          .batch);
  ReplayOutcome after = ReplayMessages(*journal_, "a", 1, kMax, kMax);
  ASSERT_OK(after.status);
  ASSERT_EQ(after.events.size(), 1u);
  EXPECT_EQ(after.events[0].sequence_nr, 2);
  EXPECT_EQ(after.events[0].payload.As<Amount>()->value, 7);
  // Amount's adapter has the default manifest and read side; its Tagged
  // became the event's tags.
  EXPECT_EQ(after.events[0].adapter_manifest, "");
  EXPECT_THAT(after.events[0].tags, ElementsAre("amounts"));
}

TEST(EventAdaptersTest, BindsOneAdapterPerType) {
  EventAdapters adapters;
  EXPECT_TRUE(adapters.empty());
  EXPECT_EQ(adapters.Bind<std::string>(nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  auto adapter = std::make_shared<TextAdapter>();
  ASSERT_OK(adapters.Bind<std::string>(adapter));
  EXPECT_EQ(adapters.Bind<std::string>(adapter).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(adapters.For(typeid(std::string)), adapter.get());
  EXPECT_EQ(adapters.For(typeid(Amount)), nullptr);
  EXPECT_FALSE(adapters.empty());
}

INSTANTIATE_TEST_SUITE_P(Plugin, EventAdaptingJournalTest,
                         ::testing::Values(testing::InMemoryPlugins(),
                                           testing::RocksDbPlugins()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace cairn::persistence
