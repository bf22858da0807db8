// A member whose region begins to leave while the id of a shard it was
// about to host is still being written (remember entities): the messages
// that waited for the write go to the shard's next home. Systems in one
// process with the cluster provider, remoting on 127.0.0.1, an in-memory
// member store, lease store and journal (whose writes of the regions'
// shard ids this test holds back). Real time: every wait has a deadline.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "cluster/cluster.h"
#include "cluster/cluster_setup.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "persistence/inmem/in_memory_lease_store.h"
#include "persistence/inmem/in_memory_member_store.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistence.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"
#include "sharding/entity_region.h"
#include "sharding/internal/rendezvous.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding {
namespace {

using actor::ActorRef;
using actor::ActorSystem;
using actor::testkit::TestProbe;

constexpr absl::Duration kTimeout = absl::Seconds(20);
constexpr int kShards = 16;
constexpr char kJournal[] = "held-ids-journal";

constexpr char kConfig[] = R"(
  akka.loglevel = ERROR
  akka.actor.provider = cluster
  akka.remote.artery.canonical.hostname = "127.0.0.1"
  akka.remote.artery.canonical.port = 0
  akka.cluster.membership {
    member-ttl = 3s
    renew-interval = 300ms
    refresh-interval = 100ms
  }
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin =
      "akka.persistence.snapshot-store.inmem"
)";

// Once Hold() is called, holds back every write to a region's stream of
// shard ids (what remember entities writes before it starts a shard);
// held writes fail when the journal closes.
class HeldIdWrites final : public persistence::JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~HeldIdWrites() override {
    for (WriteCallback& done : held_) {
      std::move(done)(absl::CancelledError("closing"), {});
    }
  }
  void AsyncWriteMessages(std::vector<persistence::AtomicWrite> writes,
                          WriteCallback done) override {
    {
      base::MutexLock lock(&mu_);
      if (hold_ && !writes.empty() && !writes[0].events.empty() &&
          absl::StartsWith(writes[0].events[0].persistence_id, "/sharding/")) {
        held_.push_back(std::move(done));
        return;
      }
    }
    target().AsyncWriteMessages(std::move(writes), std::move(done));
  }
  void Hold() {
    base::MutexLock lock(&mu_);
    hold_ = true;
  }
  std::size_t held() {
    base::MutexLock lock(&mu_);
    return held_.size();
  }

 private:
  base::Mutex mu_;
  bool hold_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<WriteCallback> held_ ABSL_GUARDED_BY(mu_);
};

// Answers each message with "<its system's address>|<id>|<count>".
class Counter final : public actor::Actor {
 public:
  explicit Counter(std::string id) : id_(std::move(id)) {
    Receive<std::string>([this](const std::string&) {
      Sender().Tell(absl::StrCat(Context().System().address().ToString(), "|",
                                 id_, "|", ++count_));
    });
  }

 private:
  const std::string id_;
  int count_ = 0;
};

class LeavingRegionTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (auto& system : systems_) system->Terminate().wait();
  }

  // `journal`: set to the system's journal when the plugin is made.
  ActorSystem* StartSystem(std::atomic<HeldIdWrites*>* journal) {
    absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(kConfig);
    EXPECT_OK(config);
    if (!config.ok()) return nullptr;
    actor::ActorSystemOptions options;
    options.setup =
        actor::ActorSystemSetup().With(cluster::ClusterSetup{members_});
    absl::StatusOr<std::unique_ptr<ActorSystem>> system =
        ActorSystem::Create("shop", *config, std::move(options));
    EXPECT_OK(system);
    if (!system.ok()) return nullptr;
    persistence::PersistenceSetup setup;
    setup.register_plugins = [journal](persistence::PluginRegistry& plugins) {
      return plugins.RegisterJournal(
          kJournal,
          [journal](const persistence::PluginContext& context)
              -> absl::StatusOr<std::unique_ptr<persistence::Journal>> {
            auto held = std::make_unique<HeldIdWrites>(
                persistence::NewInMemoryJournal(context.serialization));
            journal->store(held.get());
            return std::unique_ptr<persistence::Journal>(std::move(held));
          });
    };
    EXPECT_OK(persistence::Persistence::Get(**system).Setup(std::move(setup)));
    systems_.push_back(*std::move(system));
    return systems_.back().get();
  }

  EntityRegionSettings Settings(bool proxy) {
    EntityRegionSettings s;
    s.number_of_shards = kShards;
    s.lease_ttl = absl::Seconds(3);
    s.lease_retry_interval = absl::Milliseconds(100);
    s.rebalance_interval = absl::ZeroDuration();
    if (!proxy) {
      s.lease_store = leases_;
      s.remember_entities = true;
      s.journal_plugin_id = kJournal;
    }
    return s;
  }

  ActorRef StartRegion(ActorSystem& system) {
    return EntityRegion::Start(
        system, "counter",
        [](const std::string& id) { return actor::Props::Create<Counter>(id); },
        Settings(/*proxy=*/false), std::make_shared<EnvelopeExtractor>());
  }

  static void AwaitRegions(ActorSystem& system, const ActorRef& region,
                           std::size_t n) {
    const absl::Time deadline = absl::Now() + kTimeout;
    TestProbe probe(system);
    while (true) {
      region.Tell(GetCurrentRegions{}, probe.Ref());
      if (probe.ExpectMsg<CurrentRegions>(kTimeout).regions.size() == n) {
        return;
      }
      ASSERT_LT(absl::Now(), deadline) << "the regions never met";
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  std::shared_ptr<persistence::MemberStore> members_ =
      std::make_shared<persistence::InMemoryMemberStore>();
  std::shared_ptr<persistence::LeaseStore> leases_ =
      std::make_shared<persistence::InMemoryLeaseStore>();
  std::vector<std::unique_ptr<ActorSystem>> systems_;
};

TEST_F(LeavingRegionTest, WhatWaitedForAShardsIdGoesToItsNextHome) {
  std::atomic<HeldIdWrites*> journal_a{nullptr};
  std::atomic<HeldIdWrites*> journal_b{nullptr};
  std::atomic<HeldIdWrites*> journal_c{nullptr};
  ActorSystem* a = StartSystem(&journal_a);
  ActorSystem* b = StartSystem(&journal_b);
  ActorSystem* client = StartSystem(&journal_c);
  ASSERT_TRUE(a != nullptr && b != nullptr && client != nullptr);
  ActorRef region_a = StartRegion(*a);
  StartRegion(*b);
  ActorRef proxy =
      EntityRegion::StartProxy(*client, "counter", Settings(/*proxy=*/true),
                               std::make_shared<EnvelopeExtractor>());
  AwaitRegions(*client, proxy, 2);
  AwaitRegions(*a, region_a, 2);
  // An entity whose shard nobody holds and the ranking puts in a.
  const std::string a_address = a->address().ToString();
  const std::string b_address = b->address().ToString();
  std::string id;
  for (int n = 0; id.empty(); ++n) {
    const std::string candidate = absl::StrCat("e", n);
    if (*internal::RendezvousHome(StableShardId(candidate, kShards),
                                  {a_address, b_address}) == a_address) {
      id = candidate;
    }
  }
  // a's region loaded its ids before: from now on it writes none.
  const absl::Time deadline = absl::Now() + kTimeout;
  while (journal_a.load() == nullptr) {
    ASSERT_LT(absl::Now(), deadline) << "a's journal was never made";
    absl::SleepFor(absl::Milliseconds(5));
  }
  journal_a.load()->Hold();
  TestProbe probe(*client);
  for (int k = 0; k < 3; ++k) {
    proxy.Tell(ShardingEnvelope{id, actor::AnyMessage::Of(std::string("inc"))},
               probe.Ref());
  }
  // Placed in a, the shard waits for its id to be written there.
  while (journal_a.load()->held() == 0) {
    ASSERT_LT(absl::Now(), deadline) << "a never wrote the shard's id";
    absl::SleepFor(absl::Milliseconds(5));
  }
  // a leaves (coordinated shutdown: its region hands everything off).
  std::thread leave([a] { a->Terminate().wait(); });
  struct Joiner {
    std::thread& thread;
    ~Joiner() { thread.join(); }
  } joiner{leave};
  for (int k = 1; k <= 3; ++k) {
    std::vector<std::string> parts =
        absl::StrSplit(probe.ExpectMsg<std::string>(kTimeout), '|');
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0], b_address);
    EXPECT_EQ(parts[1], id);
    EXPECT_EQ(parts[2], std::to_string(k));
  }
}

}  // namespace
}  // namespace cairn::sharding
