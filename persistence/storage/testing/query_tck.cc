#include "persistence/storage/testing/query_tck.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence::testing {

std::string QueryPluginName(
    const ::testing::TestParamInfo<PluginUnderTest>& info) {
  return info.param.name;
}

std::vector<std::string> EventTexts(const std::vector<EventEnvelope>& events) {
  std::vector<std::string> texts;
  for (const EventEnvelope& e : events) {
    const std::string* text = e.event.As<std::string>();
    texts.push_back(text != nullptr ? *text : "?");
  }
  return texts;
}

std::vector<std::string> Positions(const std::vector<EventEnvelope>& events) {
  std::vector<std::string> positions;
  for (const EventEnvelope& e : events) {
    positions.push_back(absl::StrCat(e.persistence_id, ":", e.sequence_nr));
  }
  return positions;
}

void QueryTest::SetUp() {
  if (GetParam().skip_reason) {
    if (std::string reason = GetParam().skip_reason(); !reason.empty()) {
      GTEST_SKIP() << reason;
    }
  }
  absl::StatusOr<TempDir> dir = TempDir::Make();
  ASSERT_OK(dir);
  dir_.emplace(*std::move(dir));
  absl::Status registered = GetParam().register_plugins(plugins_, dir_->path());
  ASSERT_OK(registered);
  absl::StatusOr<std::unique_ptr<Journal>> journal = plugins_.CreateJournal(
      GetParam().journal_plugin_id, {NewTestSerialization()});
  ASSERT_OK(journal) << "creating the journal";
  journal_ = *std::move(journal);
  absl::StatusOr<std::unique_ptr<ReadJournal>> queries =
      journal_->NewReadJournal();
  ASSERT_OK(queries) << "creating the read journal";
  queries_ = *std::move(queries);
}

void QueryTest::TearDown() {
  queries_.reset();
  journal_.reset();
}

int64_t QueryTest::Persist(const std::string& persistence_id,
                           const std::string& text,
                           std::vector<std::string> tags) {
  const int64_t sequence_nr = ++highest_[persistence_id];
  PersistentRepr event =
      Event(persistence_id, sequence_nr, serialization::Payload::Of(text));
  event.tags = std::move(tags);
  AtomicWrite write;
  write.events.push_back(std::move(event));
  WriteOutcome outcome = WriteMessages(*journal_, {std::move(write)});
  EXPECT_OK(outcome.batch) << persistence_id;
  if (outcome.per_write.size() != 1) {
    ADD_FAILURE() << persistence_id << ": " << outcome.per_write.size()
                  << " write results for one write";
  } else {
    EXPECT_OK(outcome.per_write[0]) << persistence_id;
  }
  return sequence_nr;
}

void QueryTest::PersistNumbered(const std::string& persistence_id, int count,
                                const std::vector<std::string>& tags) {
  for (int i = 0; i < count; ++i) {
    Persist(persistence_id,
            absl::StrCat(persistence_id, "-", highest_[persistence_id] + 1),
            tags);
  }
}

void QueryTest::DeleteTo(const std::string& persistence_id, int64_t to) {
  absl::Status deleted = DeleteMessagesTo(*journal_, persistence_id, to);
  EXPECT_OK(deleted) << persistence_id;
}

std::vector<EventEnvelope> QueryTest::Drain(EnvelopeStream& stream,
                                            std::size_t max) {
  absl::StatusOr<std::vector<EventEnvelope>> all = PullAll(stream, max);
  EXPECT_OK(all);
  return all.ok() ? *std::move(all) : std::vector<EventEnvelope>{};
}

std::vector<std::string> QueryTest::DrainIds(IdStream& stream,
                                             std::size_t max) {
  absl::StatusOr<std::vector<std::string>> all = PullAll(stream, max);
  EXPECT_OK(all);
  return all.ok() ? *std::move(all) : std::vector<std::string>{};
}

QueryTest::Pulled QueryTest::PullAtLeast(EnvelopeStream& stream,
                                         std::size_t count, std::size_t max) {
  Pulled pulled;
  while (pulled.events.size() < count && !pulled.complete) {
    absl::StatusOr<EnvelopeBatch> batch = PullOnce(stream, max);
    if (!batch.ok()) {
      ADD_FAILURE() << "after " << pulled.events.size()
                    << " events: " << batch.status();
      return pulled;
    }
    EXPECT_LE(batch->elements.size(), max);
    if (batch->elements.empty() && !batch->complete) {
      ADD_FAILURE() << "an empty batch that is not complete";
      return pulled;
    }
    for (EventEnvelope& e : batch->elements) {
      pulled.events.push_back(std::move(e));
    }
    pulled.complete = batch->complete;
  }
  return pulled;
}

void TaggedEventsSpec::SetUp() {
  QueryTest::SetUp();
  if (HasFatalFailure() || IsSkipped()) return;
  Persist("a", "hello");
  Persist("a", "a green apple", {"green", "apple"});
  Persist("b", "a black car", {"black"});
  Persist("a", "something else");
  Persist("a", "a green banana", {"green"});
  Persist("b", "a green leaf", {"green"});
}

}  // namespace cairn::persistence::testing
