// Sharding on leases (EntityRegionSettings::lease_store): two regions of
// one type in two actor systems (two processes, as far as they can tell)
// share a lease store; one shard at a time hosts an entity, the other
// answers ShardUnavailable; a crashed holder's lease expires and the other
// region's entity recovers what the first stored; with PostgreSQL, a region
// whose lease was taken over can store nothing more.
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "actor/actor.h"
#include "actor/ask.h"
#include "actor/clock.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/inmem/in_memory_lease_store.h"
#include "persistence/persistent_actor.h"
#include "persistence/postgresql/postgres_leases.h"
#include "persistence/postgresql/testing/test_database.h"
#include "persistence/storage/testing/temp_dir.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {
namespace {

using actor::ActorRef;
using actor::AnyMessage;
using actor::Props;
using actor::testkit::TestKit;
using persistence::LeaseHolding;
using persistence::LeaseStore;
using persistence::WriteFence;
using ::testing::HasSubstr;

constexpr char kType[] = "notes";

// A persistent entity: stores each text it gets and answers
// "<id>:stored <text>"; "get" answers "<id>:" and what it has, comma
// separated; "passivate" asks its shard to stop it. A failed write is told
// to `probe` as "<id> failed: <code>: <message>".
class Notes final : public persistence::PersistentActor {
 public:
  Notes(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<std::string>(
        [this](const std::string& note) { notes_.push_back(note); });
    Command<std::string>([this](const std::string& text) {
      if (text == "get") {
        Sender().Tell(absl::StrCat(id_, ":", absl::StrJoin(notes_, ",")));
        return;
      }
      if (text == "passivate") {
        Context().Parent().Tell(Passivate{AnyMessage::Of(std::string("stop"))});
        return;
      }
      if (text == "who") {  // this incarnation
        Sender().Tell(Self().Path().ToStringWithUid());
        return;
      }
      if (text == "stop") {
        Context().Stop(Self());
        return;
      }
      Persist(text, [this](const std::string& note) {
        notes_.push_back(note);
        Sender().Tell(absl::StrCat(id_, ":stored ", note));
      });
    });
  }
  std::string PersistenceId() const override { return "notes-" + id_; }

 protected:
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload&, int64_t) override {
    probe_.Tell(
        absl::StrCat(id_, " failed: ", absl::StatusCodeToString(cause.code()),
                     ": ", cause.message()));
  }

 private:
  std::string id_;
  ActorRef probe_;
  std::vector<std::string> notes_;
};

// A LeaseStore as one process sees it: forwards to the shared store until
// cut off (a partition: every call fails), or, while paused, pretends its
// renewals worked (a process paused past its lease that has not noticed
// yet: its renewals never reach the store).
class ProcessView final : public LeaseStore {
 public:
  explicit ProcessView(std::shared_ptr<LeaseStore> store)
      : store_(std::move(store)) {}
  void CutOff() { cut_off_ = true; }
  void Pause() { paused_ = true; }

  absl::StatusOr<WriteFence> Acquire(const std::string& lease,
                                     const std::string& owner,
                                     absl::Duration ttl) override {
    if (cut_off_) return absl::UnavailableError("partitioned");
    return store_->Acquire(lease, owner, ttl);
  }
  absl::Status Renew(const WriteFence& fence, absl::Duration ttl) override {
    if (cut_off_) return absl::UnavailableError("partitioned");
    if (paused_) return absl::OkStatus();
    absl::Status renewed = store_->Renew(fence, ttl);
    if (renewed.ok()) ++renewals_;
    return renewed;
  }
  // Renewals that reached the store and succeeded.
  int renewals() const { return renewals_.load(); }
  absl::Status Release(const WriteFence& fence) override {
    if (cut_off_ || paused_) return absl::UnavailableError("partitioned");
    return store_->Release(fence);
  }
  absl::StatusOr<std::optional<LeaseHolding>> Holder(
      const std::string& lease) override {
    if (cut_off_) return absl::UnavailableError("partitioned");
    return store_->Holder(lease);
  }

 private:
  const std::shared_ptr<LeaseStore> store_;
  std::atomic<bool> cut_off_{false};
  std::atomic<bool> paused_{false};
  std::atomic<int> renewals_{0};
};

ShardingEnvelope To(std::string id, std::string text) {
  return ShardingEnvelope{std::move(id), AnyMessage::Of(std::move(text))};
}

ActorRef StartRegion(TestKit& kit, std::shared_ptr<LeaseStore> leases,
                     std::string owner, absl::Duration ttl = absl::Seconds(10),
                     absl::Duration retry = absl::Seconds(1)) {
  EntityRegionSettings settings;
  settings.number_of_shards = 10;
  settings.lease_store = std::move(leases);
  settings.lease_owner = std::move(owner);
  settings.lease_ttl = ttl;
  settings.lease_retry_interval = retry;
  ActorRef probe = kit.TestActor();
  return EntityRegion::Start(
      kit.Sys(), kType,
      [probe](const std::string& id) {
        return Props::Create<Notes>(id, probe);
      },
      settings, std::make_shared<EnvelopeExtractor>());
}

std::string ShardOf(const std::string& id) {
  return EnvelopeExtractor().ShardId(id, 10);
}

// The config of an actor system (a process) on `db`'s schema.
std::string PostgresConfig(const persistence::testing::TestDatabase& db) {
  return absl::StrCat(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.postgresql"
    akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.postgresql"
    akka.persistence.journal.postgresql {
      connection-string = ")",
                      db.url(), R"("
      schema = ")",
                      db.schema(), R"("
    }
  )");
}

// The leases of `db`'s schema, as every process on it opens them; null
// (the failure reported) if they cannot be opened.
std::shared_ptr<LeaseStore> OpenPostgresLeases(
    const persistence::testing::TestDatabase& db) {
  persistence::PostgresOptions options;
  options.connection_string = db.url();
  options.schema = db.schema();
  absl::StatusOr<std::unique_ptr<persistence::PostgresLeases>> opened =
      persistence::PostgresLeases::Open(options);
  if (!opened.ok()) {
    ADD_FAILURE() << opened.status();
    return nullptr;
  }
  return *std::move(opened);
}

// A remembered entity: tells `probe` "<id> started in <owner>" when it
// starts; answers "<id>:<text>".
class Tracker final : public actor::Actor {
 public:
  Tracker(std::string id, std::string owner, ActorRef probe)
      : id_(std::move(id)), owner_(std::move(owner)), probe_(std::move(probe)) {
    Receive<std::string>([this](const std::string& text) {
      Sender().Tell(absl::StrCat(id_, ":", text));
    });
  }
  void PreStart() override {
    probe_.Tell(absl::StrCat(id_, " started in ", owner_));
  }

 private:
  const std::string id_;
  const std::string owner_;
  const ActorRef probe_;
};

EntityRegionSettings RememberingSettings(std::shared_ptr<LeaseStore> leases,
                                         std::string owner) {
  EntityRegionSettings settings;
  settings.number_of_shards = 10;
  settings.remember_entities = true;
  settings.lease_store = std::move(leases);
  settings.lease_owner = std::move(owner);
  settings.lease_retry_interval = absl::Milliseconds(50);
  return settings;
}

ActorRef StartRememberingRegion(TestKit& kit,
                                std::shared_ptr<LeaseStore> leases,
                                const std::string& owner) {
  ActorRef probe = kit.TestActor();
  return EntityRegion::Start(
      kit.Sys(), kType,
      [probe, owner](const std::string& id) {
        return Props::Create<Tracker>(id, owner, probe);
      },
      RememberingSettings(std::move(leases), owner),
      std::make_shared<EnvelopeExtractor>());
}

constexpr char kInMem[] = R"(
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

TEST(LeaseTest, OneRegionHostsAnEntityTheOtherAnswersShardUnavailable) {
  actor::ManualClock clock;
  auto leases = std::make_shared<persistence::InMemoryLeaseStore>(
      [&clock] { return clock.Now(); });
  auto view_a = std::make_shared<ProcessView>(leases);
  TestKit a(kInMem, &clock);
  TestKit b(kInMem, &clock);
  ActorRef region_a = StartRegion(a, view_a, "a");
  ActorRef region_b = StartRegion(b, leases, "b");

  region_a.Tell(To("1", "x"), a.TestActor());
  a.ExpectMsg<std::string>("1:stored x");
  region_b.Tell(To("1", "y"), b.TestActor());
  ShardUnavailable unavailable = b.ExpectMsg<ShardUnavailable>();
  EXPECT_EQ(unavailable.type_name, kType);
  EXPECT_EQ(unavailable.shard_id, ShardOf("1"));
  EXPECT_THAT(unavailable.reason,
              HasSubstr(absl::StrCat("lease '", kType, "-", ShardOf("1"),
                                     "' is held by 'a'")));
  // A renewal (every third of the time to live) keeps the lease with a
  // past the end of its first holding.
  clock.Advance(absl::Seconds(4));
  a.AwaitCondition([&] { return view_a->renewals() >= 1; });
  clock.Advance(absl::Seconds(8));
  region_a.Tell(To("1", "get"), a.TestActor());
  a.ExpectMsg<std::string>("1:x");
  region_b.Tell(To("1", "y"), b.TestActor());
  b.ExpectMsg<ShardUnavailable>();

  // A graceful stop releases the lease: b hosts the entity at its next try.
  a.Watch(region_a);
  region_a.Tell(GracefulShutdown{});
  a.ExpectTerminated(region_a);
  clock.Advance(absl::Seconds(1));  // b's retry
  region_b.Tell(To("1", "y"), b.TestActor());
  b.ExpectMsg<std::string>("1:stored y");  // a separate in-memory journal
}

// A renewal that fails (here: the clock jumped past the time to live, as
// for a process paused that long) loses the lease: the entities stop at
// once, and the shard acquires the lease again and starts them anew, with
// the messages that came meanwhile.
TEST(LeaseTest, ALostLeaseStopsTheEntitiesAndIsAcquiredAgain) {
  actor::ManualClock clock;
  auto leases = std::make_shared<persistence::InMemoryLeaseStore>(
      [&clock] { return clock.Now(); });
  TestKit a(kInMem, &clock);
  ActorRef region = StartRegion(a, leases, "a");
  region.Tell(To("1", "x"), a.TestActor());
  a.ExpectMsg<std::string>("1:stored x");
  region.Tell(To("1", "who"), a.TestActor());
  const std::string first = a.ExpectMsg<std::string>();

  clock.Advance(absl::Seconds(11));  // the next renewal comes too late
  a.AwaitAssert(
      [&] {
        region.Tell(To("1", "who"), a.TestActor());
        const std::string now = a.ExpectMsg<std::string>();
        if (now == first) throw std::runtime_error("the same incarnation");
      },
      absl::Seconds(10), absl::Milliseconds(10));
  region.Tell(To("1", "get"), a.TestActor());
  a.ExpectMsg<std::string>("1:x");
}

// A process that dies holding a lease: the lease runs out after its time
// to live, and the other region takes the shard over; its entity recovers
// every event the first one stored (the same RocksDB store, one process
// after the other).
TEST(LeaseTest, AfterTheHolderDiesItsLeaseExpiresAndTheOtherTakesOver) {
  absl::StatusOr<persistence::testing::TempDir> dir =
      persistence::testing::TempDir::Make();
  ASSERT_OK(dir);
  const std::string config = absl::StrCat(R"(
    akka.persistence.journal.rocksdb.dir = ")",
                                          dir->path(), R"("
    akka.persistence.journal.rocksdb.fsync = off
  )");
  actor::ManualClock clock;
  auto leases = std::make_shared<persistence::InMemoryLeaseStore>(
      [&clock] { return clock.Now(); });
  {
    auto view = std::make_shared<ProcessView>(leases);
    TestKit a(config, &clock);
    ActorRef region = StartRegion(a, view, "a");
    for (std::string text : {"p", "q", "r"}) {
      region.Tell(To("1", text), a.TestActor());
      a.ExpectMsg<std::string>("1:stored " + text);
    }
    view->CutOff();  // it dies: its lease is not released
  }
  TestKit b(config, &clock);
  ActorRef region = StartRegion(b, leases, "b");
  region.Tell(To("1", "get"), b.TestActor());
  EXPECT_THAT(b.ExpectMsg<ShardUnavailable>().reason, HasSubstr("'a'"));
  clock.Advance(absl::Seconds(10));  // a's lease runs out; b tries again
  region.Tell(To("1", "get"), b.TestActor());
  b.ExpectMsg<std::string>("1:p,q,r");
}

// With PostgreSQL (skipped without a server): the journal checks the
// fence, so a region whose lease was taken over while it was paused stores
// nothing more, and the new holder recovers exactly the acknowledged
// events.
TEST(LeaseTest, ARegionWhoseLeaseWasTakenOverCannotStoreAnything) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::shared_ptr<LeaseStore> leases = OpenPostgresLeases(db);
  ASSERT_NE(leases, nullptr);
  const std::string config = PostgresConfig(db);
  auto view_a = std::make_shared<ProcessView>(leases);
  TestKit a(config);
  TestKit b(config);
  // The server's clock decides: a short time to live for a, so that its
  // lease runs out soon once its renewals stop reaching the server.
  ActorRef region_a =
      StartRegion(a, view_a, "a", absl::Seconds(1), absl::Milliseconds(50));
  ActorRef region_b =
      StartRegion(b, leases, "b", absl::Seconds(30), absl::Milliseconds(50));
  for (std::string text : {"p", "q"}) {
    region_a.Tell(To("1", text), a.TestActor());
    a.ExpectMsg<std::string>("1:stored " + text, absl::Seconds(10));
  }

  view_a->Pause();  // a stops renewing but believes it holds the lease
  // b gets the shard once a's holding has run out on the server.
  b.AwaitAssert(
      [&] {
        region_b.Tell(To("1", "get"), b.TestActor());
        AnyMessage answer = b.ReceiveN(1, absl::Seconds(10)).front();
        if (!answer.Is<std::string>()) {
          throw std::runtime_error("the shard is still unavailable to b");
        }
        EXPECT_EQ(*answer.As<std::string>(), "1:p,q");
      },
      absl::Seconds(20), absl::Milliseconds(100));

  // a's entity, still running, cannot store anything more.
  region_a.Tell(To("1", "r"), a.TestActor());
  const std::string failure = a.ExpectMsg<std::string>(absl::Seconds(10));
  EXPECT_THAT(failure, HasSubstr("1 failed: FAILED_PRECONDITION"));
  EXPECT_THAT(failure, HasSubstr(absl::StrCat("lease '", kType, "-",
                                              ShardOf("1"), "'")));

  // b's next incarnation recovers exactly what was acknowledged.
  region_b.Tell(To("1", "passivate"), b.TestActor());
  region_b.Tell(To("1", "get"), b.TestActor());
  b.ExpectMsg<std::string>("1:p,q", absl::Seconds(10));
  region_b.Tell(To("1", "s"), b.TestActor());
  b.ExpectMsg<std::string>("1:stored s", absl::Seconds(10));
}

// Remember entities across processes (PostgreSQL; skipped without a
// server): each region remembers the shards it hosted under its owner's
// name, so regions of one type in two processes do not write one stream,
// and a process started again (the same owner) gets its own entities
// back, without a message, and not the other's.
TEST(LeaseTest, EachProcessRemembersTheShardsItHosted) {
  CAIRN_POSTGRES_TEST_DATABASE_OR_SKIP(db);
  std::shared_ptr<LeaseStore> leases = OpenPostgresLeases(db);
  ASSERT_NE(leases, nullptr);
  const std::string config = PostgresConfig(db);
  const std::string one = "1";
  std::string two = "2";
  while (ShardOf(two) == ShardOf(one)) two += "2";
  {
    TestKit a(config);
    TestKit b(config);
    ActorRef region_a = StartRememberingRegion(a, leases, "a");
    ActorRef region_b = StartRememberingRegion(b, leases, "b");
    region_a.Tell(To(one, "x"), a.TestActor());
    a.ExpectMsg<std::string>(one + " started in a", absl::Seconds(10));
    a.ExpectMsg<std::string>(one + ":x", absl::Seconds(10));
    region_b.Tell(To(two, "y"), b.TestActor());
    b.ExpectMsg<std::string>(two + " started in b", absl::Seconds(10));
    b.ExpectMsg<std::string>(two + ":y", absl::Seconds(10));
    // Graceful stops keep the entities remembered and release the leases.
    auto stop = [](TestKit& kit, const ActorRef& region) {
      kit.Watch(region);
      region.Tell(GracefulShutdown{});
      kit.ExpectTerminated(region, absl::Seconds(10));
    };
    stop(a, region_a);
    stop(b, region_b);
  }
  // Each remembered its shards in a stream of its own.
  absl::StatusOr<std::vector<std::vector<std::string>>> streams = db.Query(
      "SELECT DISTINCT persistence_id FROM event_journal WHERE "
      "persistence_id LIKE '/sharding/%Coordinator%' ORDER BY 1");
  ASSERT_OK(streams);
  ASSERT_EQ(streams->size(), 2u);
  EXPECT_EQ((*streams)[0][0],
            absl::StrCat("/sharding/", kType, "Coordinator/a"));
  EXPECT_EQ((*streams)[1][0],
            absl::StrCat("/sharding/", kType, "Coordinator/b"));
  // a first: had it remembered b's shard too, it would take that lease
  // before b could.
  TestKit a(config);
  StartRememberingRegion(a, leases, "a");
  a.ExpectMsg<std::string>(one + " started in a", absl::Seconds(10));
  TestKit b(config);
  StartRememberingRegion(b, leases, "b");
  b.ExpectMsg<std::string>(two + " started in b", absl::Seconds(10));
}

TEST(LeaseTest, RememberEntitiesWithLeasesNeedsANamedOwner) {
  EntityRegionSettings settings = RememberingSettings(
      std::make_shared<persistence::InMemoryLeaseStore>(), "");
  TestKit kit(kInMem);
  try {
    EntityRegion::Start(
        kit.Sys(), kType,
        [](const std::string& id) {
          return Props::Create<Tracker>(id, "", ActorRef());
        },
        settings, std::make_shared<EnvelopeExtractor>());
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("lease-owner"));
  }
}

TEST(LeaseTest, SettingsFromConfig) {
  absl::StatusOr<hocon::Config> defaults = hocon::Config::Load();
  ASSERT_OK(defaults);
  absl::StatusOr<EntityRegionSettings> s =
      EntityRegionSettings::FromConfig(*defaults);
  ASSERT_OK(s);
  EXPECT_EQ(s->lease_store, nullptr);  // no leases unless set in code
  EXPECT_EQ(s->lease_ttl, absl::Seconds(10));
  EXPECT_EQ(s->lease_owner, "");
  EXPECT_EQ(s->lease_retry_interval, absl::Seconds(1));

  absl::StatusOr<hocon::Config> app = hocon::Config::ParseString(
      "akka.cluster.sharding { lease-ttl = 30s, lease-owner = node-7, "
      "lease-retry-interval = 250ms }");
  ASSERT_OK(app);
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_OK(s);
  EXPECT_EQ(s->lease_ttl, absl::Seconds(30));
  EXPECT_EQ(s->lease_owner, "node-7");
  EXPECT_EQ(s->lease_retry_interval, absl::Milliseconds(250));

  app = hocon::Config::ParseString("akka.cluster.sharding.lease-ttl = 0s");
  ASSERT_OK(app);
  s = EntityRegionSettings::FromConfig(*hocon::Config::Load(*app));
  ASSERT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("lease-ttl"));
}

}  // namespace
}  // namespace cairn::sharding
