// EntityRegion: one entity per id, created on its first message, messages
// kept in order across a passivation, idle and least-recently-used
// passivation, and the state queries. Deterministic mode: actors run on
// the test's thread and time is a manual clock.
#include "sharding/entity_region.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/coordinated_shutdown.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"

namespace cairn::sharding {
namespace {

using actor::ActorRef;
using actor::AnyMessage;
using actor::Props;
using actor::testkit::TestKit;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// Tells `probe` what happens to it: "<id> started", "<id> got <text>"
// (and answers the sender "<id>:<text>"), "<id> stopped". Asks to be
// passivated on "passivate", with "stop" as its stop message, and on
// "passivate-slowly" with "stop-later", after which it stops only when sent
// "stop-now".
class Entity : public actor::Actor {
 public:
  Entity(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Receive<std::string>([this](const std::string& text) {
      if (text == "passivate") {
        Context().Parent().Tell(Passivate{AnyMessage::Of(std::string("stop"))});
        return;
      }
      if (text == "passivate-slowly") {
        Context().Parent().Tell(
            Passivate{AnyMessage::Of(std::string("stop-later"))});
        return;
      }
      if (text == "hand-off") {  // the stop message of the shutdown tests
        probe_.Tell(id_ + " handed off");
        Context().Stop(Self());
        return;
      }
      if (text == "stop" || text == "stop-now") {
        Context().Stop(Self());
        return;
      }
      if (text == "stop-later") {  // stops on "stop-now", sent directly
        probe_.Tell(id_ + " stopping");
        return;
      }
      probe_.Tell(id_ + " got " + text);
      Sender().Tell(id_ + ":" + text);
    });
  }
  void PreStart() override { probe_.Tell(id_ + " started"); }
  void PostStop() override { probe_.Tell(id_ + " stopped"); }

 private:
  std::string id_;
  ActorRef probe_;
};

class EntityRegionTest : public ::testing::Test {
 protected:
  EntityRegionTest() : kit_(TestKit::Deterministic{}) {}

  ActorRef StartRegion(EntityRegionSettings settings) {
    ActorRef probe = probe_->Ref();
    return EntityRegion::Start(
        kit_.Sys(), "things",
        [probe](const std::string& id) {
          return Props::Create<Entity>(id, probe);
        },
        settings, std::make_shared<EnvelopeExtractor>());
  }
  static ShardingEnvelope To(std::string id, std::string text) {
    return ShardingEnvelope{std::move(id), AnyMessage::Of(std::move(text))};
  }
  // What the probe heard, until it hears nothing more.
  std::vector<std::string> Heard() {
    kit_.DispatchAll();
    std::vector<std::string> heard;
    while (true) {
      AnyMessage m;
      try {
        m = probe_->ReceiveOne(absl::ZeroDuration());
      } catch (const actor::testkit::TestKitAssertion&) {
        return heard;  // nothing more
      }
      heard.push_back(*m.As<std::string>());
    }
  }

  // The next T the test actor got (the entities' answers come there too).
  template <typename T>
  T Fish() {
    return kit_.FishForMessage<T>([](const T&) { return true; });
  }

  TestKit kit_;
  std::unique_ptr<actor::testkit::TestProbe> probe_ = kit_.CreateTestProbe();
};

TEST_F(EntityRegionTest, CreatesAnEntityOnItsFirstMessageAndRoutesByItsId) {
  ActorRef region = StartRegion(EntityRegionSettings());
  region.Tell(To("a", "1"), kit_.TestActor());
  region.Tell(To("b", "2"), kit_.TestActor());
  region.Tell(To("a", "3"), kit_.TestActor());
  EXPECT_THAT(Heard(), ElementsAre("a started", "a got 1", "b started",
                                   "b got 2", "a got 3"));
  // The sender is kept: the entities answered the test actor.
  kit_.ExpectMsg<std::string>("a:1");
  kit_.ExpectMsg<std::string>("b:2");
  kit_.ExpectMsg<std::string>("a:3");
}

TEST_F(EntityRegionTest, IdsThatAreNotActorNamesAreEntitiesToo) {
  ActorRef region = StartRegion(EntityRegionSettings());
  for (std::string id : {"", "a/b", "$x", "~", "%7E", "ü"}) {
    region.Tell(To(id, "hi"), kit_.TestActor());
    kit_.ExpectMsg<std::string>(id + ":hi");
  }
  region.Tell(GetShardRegionStats{}, kit_.TestActor());
  std::size_t total = 0;
  for (const auto& [shard, n] : Fish<ShardRegionStats>().stats) {
    total += n;
  }
  EXPECT_EQ(total, 6u);
}

TEST_F(EntityRegionTest, MessagesDuringAPassivationGoToTheNextIncarnation) {
  ActorRef region = StartRegion(EntityRegionSettings());
  region.Tell(To("a", "1"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("a:1");
  ActorRef a = kit_.LastSender();
  region.Tell(To("a", "passivate-slowly"));
  // "2" reaches the entity before the shard has the Passivate: the entity
  // gets it before its stop message (as in Akka).
  region.Tell(To("a", "2"));
  EXPECT_THAT(Heard(),
              ElementsAre("a started", "a got 1", "a got 2", "a stopping"));
  // Sent while the shard waits for the entity to stop: held...
  region.Tell(To("a", "3"));
  region.Tell(To("a", "4"));
  EXPECT_THAT(Heard(), ElementsAre());
  // ...and given, in order, to the next incarnation.
  a.Tell(std::string("stop-now"));
  EXPECT_THAT(Heard(),
              ElementsAre("a stopped", "a started", "a got 3", "a got 4"));
}

TEST_F(EntityRegionTest, APassivatedEntityWithNothingWaitingIsGone) {
  ActorRef region = StartRegion(EntityRegionSettings());
  region.Tell(To("a", "passivate"));
  EXPECT_THAT(Heard(), ElementsAre("a started", "a stopped"));
  region.Tell(GetShardRegionState{}, kit_.TestActor());
  for (const auto& [shard, ids] : Fish<CurrentShardRegionState>().shards) {
    EXPECT_TRUE(ids.empty()) << "shard " << shard;
  }
  region.Tell(To("a", "again"));
  EXPECT_THAT(Heard(), ElementsAre("a started", "a got again"));
}

TEST_F(EntityRegionTest, AnIdleEntityIsPassivated) {
  EntityRegionSettings settings;
  settings.passivate_idle_entity_after = absl::Seconds(10);
  ActorRef region = StartRegion(settings);
  region.Tell(To("a", "1"));
  region.Tell(To("b", "1"));
  EXPECT_THAT(Heard(),
              ElementsAre("a started", "a got 1", "b started", "b got 1"));
  kit_.TestClock().Advance(absl::Seconds(6));
  region.Tell(To("b", "2"));  // b stays busy
  EXPECT_THAT(Heard(), ElementsAre("b got 2"));
  kit_.TestClock().Advance(absl::Seconds(6));  // a idle 12 s, b 6 s
  EXPECT_THAT(Heard(), ElementsAre("a stopped"));
  kit_.TestClock().Advance(absl::Seconds(10));
  EXPECT_THAT(Heard(), ElementsAre("b stopped"));
}

TEST_F(EntityRegionTest, BeyondTheLimitTheLeastRecentlyUsedIsPassivated) {
  EntityRegionSettings settings;
  settings.number_of_shards = 1;
  settings.active_entity_limit = 2;
  ActorRef region = StartRegion(settings);
  region.Tell(To("a", "1"));
  region.Tell(To("b", "1"));
  region.Tell(To("a", "2"));  // b is now the least recently used
  EXPECT_THAT(Heard(), ElementsAre("a started", "a got 1", "b started",
                                   "b got 1", "a got 2"));
  region.Tell(To("c", "1"));
  EXPECT_THAT(Heard(),
              UnorderedElementsAre("c started", "b stopped", "c got 1"));
  region.Tell(GetShardRegionState{}, kit_.TestActor());
  EXPECT_THAT(Fish<CurrentShardRegionState>().shards.at("0"),
              UnorderedElementsAre("a", "c"));
}

// How many entities are alive: started and not yet stopped.
int Live(const std::vector<std::string>& heard) {
  int live = 0;
  for (const std::string& h : heard) {
    if (h.ends_with(" started")) ++live;
    if (h.ends_with(" stopped")) --live;
  }
  return live;
}

// The limit bounds the whole region, whatever the number of shards: each
// shard's part is the limit divided among the active shards, with the
// remainder spread so that the parts add up to the limit.
TEST(EntityRegionLimitTest, BoundsTheRegionWhateverTheShardCount) {
  for (int shards : {1, 2, 3, 4, 7, 10}) {
    SCOPED_TRACE(absl::StrCat(shards, " shards"));
    TestKit kit(TestKit::Deterministic{});
    std::unique_ptr<actor::testkit::TestProbe> probe = kit.CreateTestProbe();
    EntityRegionSettings settings;
    settings.number_of_shards = shards;
    settings.active_entity_limit = 10;
    ActorRef probe_ref = probe->Ref();
    ActorRef region = EntityRegion::Start(
        kit.Sys(), "things",
        [probe_ref](const std::string& id) {
          return Props::Create<Entity>(id, probe_ref);
        },
        settings, std::make_shared<EnvelopeExtractor>());
    // Enough ids that every shard has more entities than its part.
    for (int i = 0; i < 200; ++i) {
      region.Tell(ShardingEnvelope{absl::StrCat("e", i),
                                   AnyMessage::Of(std::string("x"))},
                  kit.TestActor());
      kit.ExpectMsg<std::string>(absl::StrCat("e", i, ":x"));
    }
    kit.DispatchAll();
    std::vector<std::string> heard;
    while (true) {
      try {
        heard.push_back(
            *probe->ReceiveOne(absl::ZeroDuration()).As<std::string>());
      } catch (const actor::testkit::TestKitAssertion&) {
        break;
      }
    }
    EXPECT_EQ(Live(heard), 10);
    region.Tell(GetShardRegionStats{}, kit.TestActor());
    std::size_t total = 0;
    for (const auto& [shard, n] :
         kit.FishForMessage<ShardRegionStats>(
                [](const ShardRegionStats&) { return true; })
             .stats) {
      total += n;
    }
    EXPECT_EQ(total, 10u);
  }
}

// A shard that becomes active takes its part from the others: with one
// active shard it may hold the whole limit.
TEST_F(EntityRegionTest, TheLimitIsSharedAgainWhenAShardBecomesActive) {
  EntityRegionSettings settings;
  settings.number_of_shards = 2;
  settings.active_entity_limit = 4;
  ActorRef region = StartRegion(settings);
  std::vector<std::string> in_0, in_1;
  for (int i = 0; in_0.size() < 4 || in_1.empty(); ++i) {
    std::string id = absl::StrCat("e", i);
    (StableShardId(id, 2) == "0" ? in_0 : in_1).push_back(id);
  }
  for (int i = 0; i < 4; ++i) region.Tell(To(in_0[i], "x"));
  EXPECT_EQ(Live(Heard()), 4);  // one active shard: the whole limit
  region.Tell(To(in_1[0], "x"));
  // Shard 0 keeps 2 now: its 2 least recently used go.
  EXPECT_THAT(Heard(),
              UnorderedElementsAre(in_0[0] + " stopped", in_0[1] + " stopped",
                                   in_1[0] + " started", in_1[0] + " got x"));
}

// Below one per shard, an entity of a shard whose part is 0 still gets its
// message, then is passivated: the bound holds and nothing is lost.
TEST_F(EntityRegionTest, ALimitBelowTheShardCountStillDeliversEveryMessage) {
  EntityRegionSettings settings;
  settings.number_of_shards = 5;
  settings.active_entity_limit = 2;
  ActorRef region = StartRegion(settings);
  for (int i = 0; i < 30; ++i) {
    region.Tell(To(absl::StrCat("e", i), "x"), kit_.TestActor());
    kit_.ExpectMsg<std::string>(absl::StrCat("e", i, ":x"));
  }
  EXPECT_LE(Live(Heard()), 2);
}

// Akka's ShardRegion.StartEntity: the entity starts without a message and
// the region's shard answers StartEntityAck; an active entity is only
// acknowledged.
TEST_F(EntityRegionTest, StartEntityStartsItWithoutAMessageAndAcks) {
  EntityRegionSettings settings;
  settings.number_of_shards = 3;
  ActorRef region = StartRegion(settings);
  region.Tell(StartEntity{"a"}, kit_.TestActor());
  StartEntityAck ack = Fish<StartEntityAck>();
  EXPECT_EQ(ack.entity_id, "a");
  EXPECT_EQ(ack.shard_id, StableShardId("a", 3));
  EXPECT_THAT(Heard(), ElementsAre("a started"));
  region.Tell(StartEntity{"a"}, kit_.TestActor());
  EXPECT_EQ(Fish<StartEntityAck>().entity_id, "a");
  EXPECT_THAT(Heard(), ElementsAre());  // already active: not started again
  region.Tell(To("a", "1"), kit_.TestActor());
  EXPECT_THAT(Heard(), ElementsAre("a got 1"));
}

// A StartEntity for an entity being passivated starts it again once it
// has stopped, then acknowledges.
TEST_F(EntityRegionTest, StartEntityDuringAPassivationStartsTheNextOne) {
  ActorRef region = StartRegion(EntityRegionSettings());
  region.Tell(To("a", "1"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("a:1");
  ActorRef a = kit_.LastSender();
  region.Tell(To("a", "passivate-slowly"));
  EXPECT_THAT(Heard(), ElementsAre("a started", "a got 1", "a stopping"));
  region.Tell(StartEntity{"a"}, kit_.TestActor());
  kit_.DispatchAll();
  kit_.ExpectNoMsg();  // no ack before it runs again
  a.Tell(std::string("stop-now"));
  EXPECT_THAT(Heard(), ElementsAre("a stopped", "a started"));
  EXPECT_EQ(Fish<StartEntityAck>().entity_id, "a");
}

// Once a stopped region's Terminated has arrived, its name is free: a
// region of the same type starts again and works, whichever way the old
// one stopped.
TEST_F(EntityRegionTest, ARegionStartsAgainUnderTheNameOfOneThatStopped) {
  ActorRef region = StartRegion(EntityRegionSettings());
  region.Tell(To("a", "1"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("a:1");
  for (bool graceful : {true, false}) {
    SCOPED_TRACE(graceful ? "GracefulShutdown" : "PoisonPill");
    kit_.Watch(region);
    if (graceful) {
      region.Tell(GracefulShutdown{});
    } else {
      region.Tell(actor::PoisonPill{});
    }
    kit_.ExpectTerminated(region);
    Heard();
    region = StartRegion(EntityRegionSettings());
    region.Tell(To("a", "2"), kit_.TestActor());
    kit_.ExpectMsg<std::string>("a:2");
    EXPECT_THAT(Heard(), ElementsAre("a started", "a got 2"));
  }
}

TEST_F(EntityRegionTest, StateAndStatsListTheEntitiesOfEachShard) {
  EntityRegionSettings settings;
  settings.number_of_shards = 3;
  ActorRef region = StartRegion(settings);
  region.Tell(GetShardRegionStats{}, kit_.TestActor());
  EXPECT_TRUE(Fish<ShardRegionStats>().stats.empty());
  for (std::string id : {"a", "b", "c", "d"}) region.Tell(To(id, "x"));
  region.Tell(GetShardRegionState{}, kit_.TestActor());
  CurrentShardRegionState state = Fish<CurrentShardRegionState>();
  std::set<std::string> all;
  for (const auto& [shard, ids] : state.shards) {
    for (const std::string& id : ids) {
      EXPECT_EQ(StableShardId(id, 3), shard) << id;
      all.insert(id);
    }
  }
  EXPECT_THAT(all, UnorderedElementsAre("a", "b", "c", "d"));
}

TEST_F(EntityRegionTest, GracefulShutdownStopsTheEntitiesThenTheRegion) {
  EntityRegionSettings settings;
  settings.stop_message = AnyMessage::Of(std::string("hand-off"));
  ActorRef region = StartRegion(settings);
  region.Tell(To("a", "1"), kit_.TestActor());
  region.Tell(To("c", "1"), kit_.TestActor());
  kit_.ExpectMsg<std::string>("a:1");
  kit_.ExpectMsg<std::string>("c:1");
  ActorRef c = kit_.LastSender();
  region.Tell(To("c", "passivate-slowly"));
  EXPECT_THAT(Heard(), ElementsAre("a started", "a got 1", "c started",
                                   "c got 1", "c stopping"));
  region.Tell(To("c", "held"));  // held while c stops: dropped by the stop
  kit_.Watch(region);
  region.Tell(GracefulShutdown{});
  region.Tell(To("a", "late"));  // to dead letters
  EXPECT_THAT(Heard(), ElementsAre("a handed off", "a stopped"));
  kit_.ExpectNoMsg();  // c has not stopped: the region waits for it
  c.Tell(std::string("stop-now"));
  EXPECT_THAT(Heard(), ElementsAre("c stopped"));  // not started again
  kit_.ExpectTerminated(region);
}

TEST_F(EntityRegionTest, CoordinatedShutdownStopsTheRegionInItsPhase) {
  EntityRegionSettings settings;
  settings.stop_message = AnyMessage::Of(std::string("hand-off"));
  ActorRef region = StartRegion(settings);
  region.Tell(To("a", "1"));
  EXPECT_THAT(Heard(), ElementsAre("a started", "a got 1"));
  kit_.Watch(region);
  // The region's phase runs before the system terminates.
  actor::CoordinatedShutdown::Get(kit_.Sys()).Run("test").wait();
  // Handed off by the region, not merely stopped with the system.
  EXPECT_THAT(Heard(), ElementsAre("a handed off", "a stopped"));
}

// The same on the thread pool, where the Terminated and the release of
// the name travel on different threads; many times, to meet the race.
TEST(EntityRegionRestartTest, TheNameIsFreeWhenTerminatedArrives) {
  TestKit kit;
  // Starts the region "things" and waits for its entity "a" to take `m`.
  auto start_and_deliver = [&kit](const std::string& m) {
    ActorRef probe = kit.TestActor();
    ActorRef region = EntityRegion::Start(
        kit.Sys(), "things",
        [probe](const std::string& id) {
          return Props::Create<Entity>(id, probe);
        },
        EntityRegionSettings(), std::make_shared<EnvelopeExtractor>());
    region.Tell(ShardingEnvelope{"a", AnyMessage::Of(m)}, kit.TestActor());
    kit.FishForMessage<std::string>(
        [&m](const std::string& s) { return s == "a:" + m; });
    return region;
  };
  for (int i = 0; i < 200; ++i) {
    SCOPED_TRACE(absl::StrCat("round ", i));
    ActorRef region = start_and_deliver("1");
    kit.Watch(region);
    if (i % 2 == 0) {
      region.Tell(GracefulShutdown{});
    } else {
      region.Tell(actor::PoisonPill{});
    }
    kit.FishForMessage<actor::Terminated>(
        [&](const actor::Terminated& t) { return t.actor == region; });
  }
  start_and_deliver("2");
}

TEST(StableShardIdTest, IsTheSameInEveryRunAndSpreadsIds) {
  // FNV-1a of "a" is 0xaf63dc4c8601ec8c.
  EXPECT_EQ(StableShardId("a", 1000),
            std::to_string(0xaf63dc4c8601ec8cull % 1000));
  std::set<std::string> shards;
  for (int i = 0; i < 1000; ++i) {
    shards.insert(StableShardId("entity-" + std::to_string(i), 10));
  }
  EXPECT_EQ(shards.size(), 10u);
}

TEST(EntityRegionSettingsTest, ReadsAkkasKeysAndNamesABadOne) {
  absl::StatusOr<hocon::Config> defaults = hocon::Config::Load();
  ASSERT_OK(defaults);
  absl::StatusOr<EntityRegionSettings> s =
      EntityRegionSettings::FromConfig(*defaults);
  ASSERT_OK(s);
  EXPECT_EQ(s->number_of_shards, 100);
  EXPECT_EQ(s->passivate_idle_entity_after, absl::Minutes(2));
  // Akka typed's default (2.6.18): at most 100,000 active entities.
  EXPECT_EQ(s->active_entity_limit, 100000u);
  EXPECT_EQ(EntityRegionSettings().active_entity_limit, 100000u);

  absl::StatusOr<hocon::Config> app = hocon::Config::ParseString(
      "akka.cluster.sharding { passivate-idle-entity-after = off, "
      "passivation.active-entity-limit = 1000 }");
  ASSERT_OK(app);
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_OK(s);
  EXPECT_EQ(s->passivate_idle_entity_after, absl::ZeroDuration());
  EXPECT_EQ(s->active_entity_limit, 1000u);

  // Off: the limit alone, or every automatic passivation (strategy none).
  app = hocon::Config::ParseString(
      "akka.cluster.sharding.passivation.active-entity-limit = off");
  ASSERT_OK(app);
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_OK(s);
  EXPECT_EQ(s->active_entity_limit, 0u);
  EXPECT_EQ(s->passivate_idle_entity_after, absl::Minutes(2));
  app = hocon::Config::ParseString(
      "akka.cluster.sharding.passivation.strategy = none");
  ASSERT_OK(app);
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_OK(s);
  EXPECT_EQ(s->active_entity_limit, 0u);
  EXPECT_EQ(s->passivate_idle_entity_after, absl::ZeroDuration());
  app = hocon::Config::ParseString(
      "akka.cluster.sharding.passivation.strategy = lru");
  ASSERT_OK(app);
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("passivation.strategy"),
            std::string::npos);

  app =
      hocon::Config::ParseString("akka.cluster.sharding.number-of-shards = 0");
  ASSERT_OK(app);
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("number-of-shards"), std::string::npos);
}

}  // namespace
}  // namespace cairn::sharding
