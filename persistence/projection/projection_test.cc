// Projections: a handler over a query from the stored offset, at-least-once
// or exactly-once, resumed where it stopped, restarted after a failure.

#include "persistence/projection/projection.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/persistence.h"
#include "persistence/postgresql/postgres_projection_store.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/rocksdb/rocksdb_projection_store.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::testkit::TestKit;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

constexpr char kInMemConfig[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

// What the handlers saw, across restarts (each start makes a new handler).
class Log {
 public:
  void Add(std::string s) {
    base::MutexLock lock(&mu_);
    entries_.push_back(std::move(s));
  }
  std::vector<std::string> entries() const {
    base::MutexLock lock(&mu_);
    return entries_;
  }

 private:
  mutable base::Mutex mu_;
  std::vector<std::string> entries_ ABSL_GUARDED_BY(mu_);
};

std::string Text(const EventEnvelope& e) {
  return absl::StrCat(*e.event.As<std::string>(), "@", e.offset);
}

// Fails the first time it meets the event `fail_on` (the text), then works.
class RecordingHandler : public ProjectionHandler {
 public:
  RecordingHandler(std::shared_ptr<Log> log, std::string fail_on,
                   std::shared_ptr<bool> failed)
      : log_(std::move(log)),
        fail_on_(std::move(fail_on)),
        failed_(std::move(failed)) {}
  absl::Status Process(const EventEnvelope& e) override {
    if (*e.event.As<std::string>() == fail_on_ && !*failed_) {
      *failed_ = true;
      log_->Add(Text(e) + " failed");
      return absl::InternalError("the handler failed on purpose");
    }
    log_->Add(Text(e));
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<Log> log_;
  std::string fail_on_;
  std::shared_ptr<bool> failed_;
};

// Counts the events and remembers each in the read model; throws the first
// time it meets `fail_on`.
class CountingHandler : public ExactlyOnceHandler {
 public:
  CountingHandler(std::string fail_on, std::shared_ptr<bool> failed)
      : fail_on_(std::move(fail_on)), failed_(std::move(failed)) {}
  absl::Status Process(const EventEnvelope& e,
                       ProjectionTransaction& tx) override {
    if (*e.event.As<std::string>() == fail_on_ && !*failed_) {
      *failed_ = true;
      throw std::runtime_error("thrown on purpose");
    }
    absl::StatusOr<std::optional<std::string>> count = tx.Get("count");
    if (!count.ok()) return count.status();
    int64_t n = 0;
    if (count->has_value() && !absl::SimpleAtoi(**count, &n)) {
      return absl::DataLossError("count is not a number");
    }
    tx.Put("count", absl::StrCat(n + 1));
    tx.Put(absl::StrCat("seen/", *e.event.As<std::string>()), "1");
    return absl::OkStatus();
  }

 private:
  std::string fail_on_;
  std::shared_ptr<bool> failed_;
};

ProjectionSettings FastRestarts() {
  ProjectionSettings s;
  s.min_backoff = absl::Milliseconds(10);
  s.max_backoff = absl::Milliseconds(50);
  s.random_factor = 0;
  return s;
}

class ProjectionTest : public ::testing::Test {
 protected:
  ProjectionTest() : kit_(kInMemConfig) {
    PersistenceSetup setup;
    setup.serialization = testing::NewTestSerialization();
    EXPECT_OK(Persistence::Get(kit_.Sys()).Setup(std::move(setup)));
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make("projection");
    EXPECT_OK(dir);
    dir_.emplace(*std::move(dir));
    absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
        RocksDbProjectionStore::Open(dir_->path(), {.sync = false});
    EXPECT_OK(store);
    store_ = *std::move(store);
  }

  // Events "e<n>" of `id`, tagged "t", each written alone.
  void WriteTagged(int64_t from, int64_t to, const std::string& id = "a") {
    absl::StatusOr<Journal*> journal =
        Persistence::Get(kit_.Sys()).JournalFor("");
    ASSERT_OK(journal);
    for (int64_t n = from; n <= to; ++n) {
      AtomicWrite write = testing::Single(
          id, n, serialization::Payload::Of(absl::StrCat("e", n)));
      write.events[0].tags = {"t"};
      ASSERT_OK(testing::WriteMessages(**journal, {std::move(write)}).batch);
    }
  }

  Projection AtLeastOnce(SourceProvider source, std::string fail_on = "") {
    auto failed = std::make_shared<bool>(false);
    return Projection::AtLeastOnce({"recorder", "t"}, std::move(source), store_,
                                   [log = log_, fail_on, failed] {
                                     return std::make_unique<RecordingHandler>(
                                         log, fail_on, failed);
                                   })
        .WithSettings(FastRestarts())
        .WithStatusObserver(kit_.TestActor());
  }

  Projection ExactlyOnce(SourceProvider source, std::string fail_on = "") {
    auto failed = std::make_shared<bool>(false);
    return Projection::ExactlyOnce({"counter", "t"}, std::move(source), store_,
                                   [fail_on, failed] {
                                     return std::make_unique<CountingHandler>(
                                         fail_on, failed);
                                   })
        .WithSettings(FastRestarts())
        .WithStatusObserver(kit_.TestActor());
  }

  // Runs `p` (a current source) until it completes and stops.
  ProjectionCompleted RunToCompletion(const Projection& p) {
    ActorRef running = kit_.Sys().ActorOf(p.Props());
    kit_.Watch(running);
    ProjectionCompleted done = kit_.FishForMessage<ProjectionCompleted>(
        [](const ProjectionCompleted&) { return true; });
    kit_.FishForMessage<actor::Terminated>(
        [&](const actor::Terminated& t) { return t.actor == running; });
    return done;
  }

  std::string Value(const std::string& key) {
    absl::StatusOr<std::optional<std::string>> v = store_->Get(key);
    EXPECT_OK(v);
    return v.ok() && v->has_value() ? **v : "<none>";
  }

  // On store_: a run counts each event once, and the next one resumes
  // from the stored offset.
  void ExpectExactlyOnceResumes() {
    WriteTagged(1, 5);
    Projection p =
        ExactlyOnce(EventSourcedProvider::CurrentEventsByTag("", "t"));
    EXPECT_EQ(RunToCompletion(p).offset, (ProjectionOffset{5, 1}));
    EXPECT_EQ(Value("count"), "5");
    // More events: the next run handles only them.
    WriteTagged(6, 8);
    EXPECT_EQ(RunToCompletion(p).offset, (ProjectionOffset{8, 1}));
    EXPECT_EQ(Value("count"), "8");
    EXPECT_EQ(*store_->ReadOffset({"counter", "t"}), (ProjectionOffset{8, 1}));
    // Nothing new: nothing handled.
    RunToCompletion(p);
    EXPECT_EQ(Value("count"), "8");
  }

  TestKit kit_;
  std::optional<testing::TempDir> dir_;
  std::shared_ptr<ProjectionStore> store_;
  std::shared_ptr<Log> log_ = std::make_shared<Log>();
};

TEST_F(ProjectionTest, ExactlyOnceResumesFromItsOffsetAndCountsEachEventOnce) {
  ExpectExactlyOnceResumes();
}

// The same with the store in PostgreSQL (skips without the test server:
// docs/POSTGRESQL.md, "Testing against PostgreSQL").
TEST_F(ProjectionTest, ExactlyOnceOnThePostgresStore) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  PostgresOptions options;
  options.connection_string = db.url();
  options.schema = db.schema();
  absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
      PostgresProjectionStore::Open(options);
  ASSERT_OK(store);
  store_ = *std::move(store);
  ExpectExactlyOnceResumes();
  store_.reset();  // its connections end before the schema is dropped
}

TEST_F(ProjectionTest, ExactlyOnceDropsTheFailedTransactionAndRestarts) {
  WriteTagged(1, 6);
  ProjectionSettings settings = FastRestarts();
  settings.batch_size = 4;  // e1..e4, then e5, e6
  Projection p =
      ExactlyOnce(EventSourcedProvider::CurrentEventsByTag("", "t"), "e3")
          .WithSettings(settings);
  ActorRef running = kit_.Sys().ActorOf(p.Props());
  ProjectionFailed failed = kit_.FishForMessage<ProjectionFailed>(
      [](const ProjectionFailed&) { return true; });
  EXPECT_NE(failed.cause.find("thrown on purpose"), std::string::npos)
      << failed.cause;
  kit_.FishForMessage<ProjectionCompleted>(
      [](const ProjectionCompleted&) { return true; });
  // e1 and e2 were in the failed transaction: counted once, after the
  // restart.
  EXPECT_EQ(Value("count"), "6");
  for (int n = 1; n <= 6; ++n) EXPECT_EQ(Value(absl::StrCat("seen/e", n)), "1");
}

TEST_F(ProjectionTest, AtLeastOnceSavesWhatWasHandledBeforeAFailure) {
  WriteTagged(1, 5);
  Projection p =
      AtLeastOnce(EventSourcedProvider::CurrentEventsByTag("", "t"), "e3");
  RunToCompletion(p);
  // e1 and e2 were saved when the runner stopped for the failure: only e3
  // (which failed) is handled again.
  EXPECT_THAT(log_->entries(), ElementsAre("e1@1", "e2@2", "e3@3 failed",
                                           "e3@3", "e4@4", "e5@5"));
  EXPECT_EQ(*store_->ReadOffset({"recorder", "t"}), (ProjectionOffset{5, 1}));
}

TEST_F(ProjectionTest,
       AtLeastOnceFollowsALiveQueryAndSavesItsOffsetWhenStopped) {
  WriteTagged(1, 2);
  ProjectionSettings settings = FastRestarts();
  settings.save_offset_after_envelopes = 1000;  // only by time or at stop
  settings.save_offset_after_duration = absl::Hours(1);
  Projection p = AtLeastOnce(EventSourcedProvider::EventsByTag("", "t"))
                     .WithSettings(settings);
  ActorRef running = kit_.Sys().ActorOf(p.Props());
  kit_.AwaitCondition([&] { return log_->entries().size() == 2; });
  WriteTagged(3, 4);  // while it waits for commits
  kit_.AwaitCondition([&] { return log_->entries().size() == 4; });
  EXPECT_EQ(*store_->ReadOffset({"recorder", "t"}), (ProjectionOffset{0, 0}));
  kit_.Watch(running);
  kit_.Sys().Stop(running);
  kit_.FishForMessage<actor::Terminated>(
      [&](const actor::Terminated& t) { return t.actor == running; });
  EXPECT_EQ(*store_->ReadOffset({"recorder", "t"}), (ProjectionOffset{4, 1}));
  // Started again, it resumes after e4.
  WriteTagged(5, 5);
  kit_.Sys().ActorOf(p.Props());
  kit_.AwaitCondition([&] { return log_->entries().size() == 5; });
  EXPECT_THAT(log_->entries(),
              ElementsAre("e1@1", "e2@2", "e3@3", "e4@4", "e5@5"));
}

TEST_F(ProjectionTest, AtLeastOnceSavesAfterEnoughEnvelopes) {
  WriteTagged(1, 5);
  ProjectionSettings settings = FastRestarts();
  settings.save_offset_after_envelopes = 2;
  settings.save_offset_after_duration = absl::Hours(1);
  settings.batch_size = 1;
  kit_.Sys().ActorOf(AtLeastOnce(EventSourcedProvider::EventsByTag("", "t"))
                         .WithSettings(settings)
                         .Props());
  EXPECT_EQ(kit_.FishForMessage<ProjectionProgress>(
                    [](const ProjectionProgress&) { return true; })
                .offset,
            (ProjectionOffset{2, 1}));
  EXPECT_EQ(kit_.FishForMessage<ProjectionProgress>(
                    [](const ProjectionProgress&) { return true; })
                .offset,
            (ProjectionOffset{4, 1}));
}

// A source of fixed envelopes: several may share an offset, as a
// read-side adapter that splits an event gives them.
class FixedStream : public QueryStream<EventEnvelope> {
 public:
  FixedStream(std::vector<EventEnvelope> envelopes, int64_t after)
      : envelopes_(std::move(envelopes)) {
    while (next_ < envelopes_.size() && envelopes_[next_].offset <= after) {
      ++next_;
    }
  }
  void Pull(std::size_t max, PullCallback done) override {
    Batch batch;
    while (next_ < envelopes_.size() && batch.elements.size() < max) {
      batch.elements.push_back(envelopes_[next_++]);
    }
    batch.complete = next_ == envelopes_.size();
    std::move(done)(std::move(batch));
  }

 private:
  std::vector<EventEnvelope> envelopes_;
  std::size_t next_ = 0;
};

SourceProvider Fixed(std::vector<std::pair<std::string, int64_t>> events) {
  std::vector<EventEnvelope> envelopes;
  for (auto& [text, offset] : events) {
    EventEnvelope e;
    e.offset = offset;
    e.event = serialization::Payload::Of(text);
    envelopes.push_back(std::move(e));
  }
  return [envelopes](actor::ActorSystem&, int64_t after)
             -> absl::StatusOr<std::unique_ptr<QueryStream<EventEnvelope>>> {
    return std::make_unique<FixedStream>(envelopes, after);
  };
}

TEST_F(ProjectionTest, AFailureInsideASplitEventResumesAtTheNextEnvelope) {
  // "b1".."b3" share offset 2; the handler fails on b2 after b1.
  Projection p = AtLeastOnce(
      Fixed({{"a", 1}, {"b1", 2}, {"b2", 2}, {"b3", 2}, {"c", 3}}), "b2");
  RunToCompletion(p);
  EXPECT_THAT(log_->entries(),
              ElementsAre("a@1", "b1@2", "b2@2 failed", "b2@2", "b3@2", "c@3"));
  // Stopped inside the split event, the offset counts its envelopes.
  EXPECT_EQ(*store_->ReadOffset({"recorder", "t"}), (ProjectionOffset{3, 1}));
}

TEST_F(ProjectionTest, ExactlyOnceCommitsInsideASplitEventWithItsCount) {
  ProjectionSettings settings = FastRestarts();
  settings.batch_size = 2;  // {a, b1}, {b2, b3}: a commit inside offset 2
  Projection p =
      ExactlyOnce(Fixed({{"a", 1}, {"b1", 2}, {"b2", 2}, {"b3", 2}}), "b3")
          .WithSettings(settings);
  RunToCompletion(p);
  EXPECT_EQ(Value("count"), "4");
  EXPECT_EQ(*store_->ReadOffset({"counter", "t"}), (ProjectionOffset{2, 3}));
}

TEST_F(ProjectionTest, GivesUpAfterMaxRestarts) {
  WriteTagged(1, 1);
  ProjectionSettings settings = FastRestarts();
  settings.max_restarts = 2;
  Projection p =
      Projection::AtLeastOnce(
          {"broken", ""},
          [](actor::ActorSystem&, int64_t)
              -> absl::StatusOr<std::unique_ptr<QueryStream<EventEnvelope>>> {
            return absl::UnavailableError("no source today");
          },
          store_, [] { return std::unique_ptr<ProjectionHandler>(); })
          .WithSettings(settings)
          .WithStatusObserver(kit_.TestActor());
  ActorRef running = kit_.Sys().ActorOf(p.Props());
  kit_.Watch(running);
  for (int i = 0; i < 3; ++i) {
    ProjectionFailed f = kit_.ExpectMsg<ProjectionFailed>();
    EXPECT_NE(f.cause.find("no source today"), std::string::npos) << f.cause;
  }
  kit_.ExpectTerminated(running);
}

absl::StatusOr<hocon::Config> Loaded(std::string_view text) {
  absl::StatusOr<hocon::Config> app = hocon::Config::ParseString(text);
  if (!app.ok()) return app.status();
  return hocon::Config::Load(*app);
}

TEST(ProjectionSettingsTest, ReferenceConfGivesAkkasDefaults) {
  absl::StatusOr<hocon::Config> config = hocon::Config::Load();
  ASSERT_OK(config);
  absl::StatusOr<ProjectionSettings> s =
      ProjectionSettings::FromConfig(*config);
  ASSERT_OK(s);
  ProjectionSettings defaults;
  EXPECT_EQ(s->min_backoff, defaults.min_backoff);
  EXPECT_EQ(s->max_backoff, defaults.max_backoff);
  EXPECT_EQ(s->random_factor, defaults.random_factor);
  EXPECT_EQ(s->max_restarts, defaults.max_restarts);
  EXPECT_EQ(s->save_offset_after_envelopes,
            defaults.save_offset_after_envelopes);
  EXPECT_EQ(s->save_offset_after_duration, defaults.save_offset_after_duration);
  EXPECT_EQ(s->batch_size, defaults.batch_size);
}

TEST(ProjectionSettingsTest, AValueOutOfRangeIsNamed) {
  absl::StatusOr<hocon::Config> config =
      Loaded("akka.projection.at-least-once.save-offset-after-envelopes = 0");
  ASSERT_OK(config);
  absl::StatusOr<ProjectionSettings> s =
      ProjectionSettings::FromConfig(*config);
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("save-offset-after-envelopes"),
            std::string::npos)
      << s.status();
  config = Loaded("akka.projection.batch-size = fast");
  ASSERT_OK(config);
  s = ProjectionSettings::FromConfig(*config);
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("batch-size"), std::string::npos)
      << s.status();
}

}  // namespace
}  // namespace cairn::persistence
