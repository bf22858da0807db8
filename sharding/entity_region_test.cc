// EntityRegion: one entity per id, created on its first message, messages
// kept in order across a passivation, idle and least-recently-used
// passivation, and the state queries. Deterministic mode: actors run on
// the test's thread and time is a manual clock.
#include "sharding/entity_region.h"

#include <set>
#include <string>
#include <vector>

#include "actor/actor.h"
#include "actor/coordinated_shutdown.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
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
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  absl::StatusOr<EntityRegionSettings> s =
      EntityRegionSettings::FromConfig(*defaults);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->number_of_shards, 100);
  EXPECT_EQ(s->passivate_idle_entity_after, absl::Minutes(2));
  EXPECT_EQ(s->active_entity_limit, 0u);

  absl::StatusOr<hocon::Config> app = hocon::Config::ParseString(
      "akka.cluster.sharding { passivate-idle-entity-after = off, "
      "passivation.active-entity-limit = 1000 }");
  ASSERT_TRUE(app.ok());
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->passivate_idle_entity_after, absl::ZeroDuration());
  EXPECT_EQ(s->active_entity_limit, 1000u);

  app =
      hocon::Config::ParseString("akka.cluster.sharding.number-of-shards = 0");
  ASSERT_TRUE(app.ok());
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("number-of-shards"), std::string::npos);
}

}  // namespace
}  // namespace cairn::sharding
