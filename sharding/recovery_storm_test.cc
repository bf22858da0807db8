// A recovery storm: thousands of persistent entities addressed at once.
// Their recoveries go through the recovery permits (no more replays at a
// time than akka.persistence.max-concurrent-recoveries), other actors are
// served meanwhile, and no command is lost, also when the active-entity
// limit passivates entities that are still recovering. Replays are held by
// the journal until the test lets them go, so what is checked in between
// does not depend on timing.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {
namespace {

using actor::ActorRef;
using actor::AnyMessage;
using actor::Props;
using actor::testkit::TestKit;
using persistence::Journal;

constexpr int kEntities = 10000;
constexpr int kPermits = 50;
constexpr char kJournal[] = "storm-journal";

std::string Config() {
  return absl::StrCat(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
    akka.persistence.snapshot-store.plugin =
        "akka.persistence.snapshot-store.inmem"
    akka.persistence.max-concurrent-recoveries = )",
                      kPermits, "\n");
}

// Holds every replay until Open(), then lets them all go, and those that
// come later at once.
class HeldReplays final : public persistence::JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~HeldReplays() override {
    for (Held& h : held_) std::move(h.done)(absl::CancelledError("closing"));
  }
  void AsyncReplayMessages(std::string id, int64_t from, int64_t to,
                           int64_t max, ReplayCallback on_event,
                           DoneCallback done) override {
    {
      base::MutexLock lock(&mu_);
      if (!open_) {
        held_.push_back(Held{std::move(id), from, to, max, std::move(on_event),
                             std::move(done)});
        return;
      }
    }
    target().AsyncReplayMessages(std::move(id), from, to, max,
                                 std::move(on_event), std::move(done));
  }
  std::size_t held() {
    base::MutexLock lock(&mu_);
    return held_.size();
  }
  void Open() {
    std::vector<Held> held;
    {
      base::MutexLock lock(&mu_);
      open_ = true;
      held.swap(held_);
    }
    for (Held& h : held) {
      target().AsyncReplayMessages(std::move(h.id), h.from, h.to, h.max,
                                   std::move(h.on_event), std::move(h.done));
    }
  }

 private:
  struct Held {
    std::string id;
    int64_t from, to, max;
    ReplayCallback on_event;
    DoneCallback done;
  };
  base::Mutex mu_;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Held> held_ ABSL_GUARDED_BY(mu_);
};

// Made on the plugin's first use, on another thread.
std::atomic<HeldReplays*> journal{nullptr};

std::size_t HeldNow() {
  HeldReplays* j = journal.load();
  return j == nullptr ? 0 : j->held();
}

absl::Status SetUpJournal(actor::ActorSystem& system) {
  persistence::PersistenceSetup setup;
  setup.register_plugins = [](persistence::PluginRegistry& plugins) {
    return plugins.RegisterJournal(
        kJournal,
        [](const persistence::PluginContext& context)
            -> absl::StatusOr<std::unique_ptr<Journal>> {
          auto held = std::make_unique<HeldReplays>(
              persistence::NewInMemoryJournal(context.serialization));
          journal.store(held.get());
          return std::unique_ptr<Journal>(std::move(held));
        });
  };
  return persistence::Persistence::Get(system).Setup(std::move(setup));
}

struct Add {};
// An entity's answer to Add: how many events it has now.
struct Counted {
  std::string id;
  int64_t events = 0;
};

class Counter final : public persistence::PersistentActor {
 public:
  explicit Counter(std::string id) : id_(std::move(id)) {
    Recover<std::string>([this](const std::string&) { ++events_; });
    Command<Add>([this](const Add&) {
      Persist(std::string("+"), [this](const std::string&) {
        ++events_;
        Sender().Tell(Counted{id_, events_});
      });
    });
  }
  std::string PersistenceId() const override { return "counter-" + id_; }
  std::string JournalPluginId() const override { return kJournal; }

 private:
  const std::string id_;
  int64_t events_ = 0;
};

// Collects the answers; tells `probe` what each entity answered, in order,
// once `expected` have come.
class Collector final : public actor::Actor {
 public:
  using Answers = std::map<std::string, std::vector<int64_t>>;
  Collector(int expected, ActorRef probe)
      : expected_(expected), probe_(std::move(probe)) {
    Receive<Counted>([this](const Counted& c) {
      answers_[c.id].push_back(c.events);
      if (++received_ == expected_) probe_.Tell(answers_);
    });
  }

 private:
  const int expected_;
  const ActorRef probe_;
  int received_ = 0;
  Answers answers_;
};

class Echo final : public actor::Actor {
 public:
  Echo() {
    Receive<std::string>([this](const std::string& s) { Sender().Tell(s); });
  }
};

class RecoveryStormTest : public ::testing::Test {
 protected:
  RecoveryStormTest() : kit_(Config()) {
    journal.store(nullptr);  // the last test's is gone with its system
    EXPECT_OK(SetUpJournal(kit_.Sys()));
  }

  ActorRef StartRegion(std::size_t active_entity_limit) {
    EntityRegionSettings settings;
    settings.number_of_shards = 10;
    settings.active_entity_limit = active_entity_limit;
    return EntityRegion::Start(
        kit_.Sys(), "counters",
        [](const std::string& id) { return Props::Create<Counter>(id); },
        settings, std::make_shared<EnvelopeExtractor>());
  }

  // Sends `per_entity` Adds to each entity, one entity after the other,
  // with answers to a collector; returns the collector.
  ActorRef AddToEvery(const ActorRef& region, int per_entity) {
    ActorRef collector = kit_.Sys().ActorOf(
        Props::Create<Collector>(kEntities * per_entity, kit_.TestActor()));
    for (int round = 0; round < per_entity; ++round) {
      for (int i = 0; i < kEntities; ++i) {
        region.Tell(
            ShardingEnvelope{absl::StrCat("e", i), AnyMessage::Of(Add{})},
            collector);
      }
    }
    return collector;
  }

  void ExpectEveryEntityAnswered(const std::vector<int64_t>& counts) {
    const auto answers = kit_.ExpectMsg<Collector::Answers>(absl::Minutes(2));
    ASSERT_EQ(answers.size(), static_cast<std::size_t>(kEntities));
    for (const auto& [id, got] : answers) {
      ASSERT_EQ(got, counts) << "entity " << id;
    }
  }

  TestKit kit_;
};

TEST_F(RecoveryStormTest, RecoveriesTakePermitsAndOtherActorsAreServed) {
  ActorRef region = StartRegion(/*active_entity_limit=*/0);
  ActorRef echo = kit_.Sys().ActorOf(Props::Create<Echo>());
  AddToEvery(region, 1);
  kit_.AwaitCondition([] { return HeldNow() == kPermits; }, absl::Minutes(1),
                      "the first recoveries to start");
  // Every entity exists and waits for a permit or its replay; an actor of
  // its own is answered meanwhile, and no replay started beyond the
  // permits.
  echo.Tell(std::string("ping"), kit_.TestActor());
  EXPECT_EQ(kit_.ExpectMsg<std::string>(), "ping");
  EXPECT_EQ(HeldNow(), static_cast<std::size_t>(kPermits));
  journal.load()->Open();
  ExpectEveryEntityAnswered({1});
}

// The limit (500, 50 per shard once all 10 are active) passivates the least
// recently started entities while they still wait for a permit, each with its
// command stashed; a second command for each then waits in its shard. Each
// entity answers both, in order: the first incarnation handles the first
// command before the passivation stops it, the next one the second.
TEST_F(RecoveryStormTest, PassivatingRecoveringEntitiesLosesNoCommand) {
  ActorRef region = StartRegion(/*active_entity_limit=*/500);
  AddToEvery(region, 2);
  kit_.AwaitCondition([] { return HeldNow() == kPermits; }, absl::Minutes(1),
                      "the first recoveries to start");
  journal.load()->Open();
  ExpectEveryEntityAnswered({1, 2});
  // Then at most the limit stays active.
  kit_.AwaitAssert(
      [&] {
        region.Tell(GetShardRegionStats{}, kit_.TestActor());
        std::size_t active = 0;
        for (const auto& [shard, count] :
             kit_.ExpectMsg<ShardRegionStats>().stats) {
          active += count;
        }
        if (active > 500) {
          throw actor::testkit::TestKitAssertion(
              absl::StrCat(active, " entities active"));
        }
      },
      absl::Minutes(1));
}

}  // namespace
}  // namespace cairn::sharding
