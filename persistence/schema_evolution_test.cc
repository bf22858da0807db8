// Schema evolution as users do it (docs/SCHEMA_EVOLUTION.md): events
// written to RocksDB by one version of an application (schema_evolution_v1
// .fbs, its registry) and recovered by a persistent actor of the next
// (schema_evolution_v2.fbs, its registry and event adapters). Each
// migration: a field added with a default, a type renamed (read under its
// old manifest), one event split into two and an obsolete one dropped (by
// event adapters bound in config and in code), and a manifest the new
// version does not know, which fails the recovery naming id, sequence
// number and manifest.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/status_testing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/schema_evolution_v1_generated.h"
#include "persistence/schema_evolution_v2_generated.h"
#include "persistence/storage/event_adapter.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "serialization/flatbuffers_serialization.h"

namespace cairn::persistence {
namespace {

namespace v1 = evolution::v1;
namespace v2 = evolution::v2;
using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The first version's registry: every v1 type under its manifest.
std::shared_ptr<const serialization::SerializationRegistry> V1Serialization() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status s = serialization::RegisterFlatBuffers<v1::ItemAddedT>(
      *registry, "shop.ItemAdded");
  if (s.ok()) {
    s = serialization::RegisterFlatBuffers<v1::CartClearedT>(
        *registry, "shop.CartCleared");
  }
  if (s.ok()) {
    s = serialization::RegisterFlatBuffers<v1::ItemReplacedT>(
        *registry, "shop.ItemReplaced");
  }
  if (s.ok())
    s = serialization::RegisterFlatBuffers<v1::AuditedT>(*registry,
                                                         "shop.Audited");
  if (s.ok()) {
    s = serialization::RegisterFlatBuffers<v1::CouponAppliedT>(
        *registry, "shop.CouponApplied");
  }
  EXPECT_OK(s);
  return registry;
}

// The second version's: ItemAdded grew a field (same manifest: FlatBuffers
// reads the old bytes with the new field's default); CartCleared is now
// CartEmptied, which also reads what was stored as shop.CartCleared;
// ItemReplaced and Audited are still read, for their adapters.
std::shared_ptr<const serialization::SerializationRegistry> V2Serialization() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status s = serialization::RegisterFlatBuffers<v2::ItemAddedT>(
      *registry, "shop.ItemAdded");
  if (s.ok()) {
    s = serialization::RegisterFlatBuffers<v2::CartEmptiedT>(
        *registry, "shop.CartEmptied",
        {{"shop.CartCleared",
          serialization::FlatBuffersDecoder<v2::CartEmptiedT, v1::CartCleared>(
              "shop.CartCleared",
              [](const v1::CartCleared&) -> absl::StatusOr<v2::CartEmptiedT> {
                return v2::CartEmptiedT{};
              })}});
  }
  if (s.ok()) {
    s = serialization::RegisterFlatBuffers<v2::ItemRemovedT>(
        *registry, "shop.ItemRemoved");
  }
  if (s.ok()) {
    s = serialization::RegisterFlatBuffers<v2::ItemReplacedT>(
        *registry, "shop.ItemReplaced");
  }
  if (s.ok())
    s = serialization::RegisterFlatBuffers<v2::AuditedT>(*registry,
                                                         "shop.Audited");
  EXPECT_OK(s);
  return registry;
}

// v2 reads an ItemReplaced as the two events that say the same.
class SplitReplaced final : public EventAdapter {
 public:
  absl::StatusOr<EventSeq> FromJournal(const serialization::Payload& event,
                                       std::string_view) const override {
    const auto& replaced = *event.As<v2::ItemReplacedT>();
    v2::ItemRemovedT removed;
    removed.name = replaced.old_name;
    v2::ItemAddedT added;
    added.name = replaced.new_name;
    return EventSeq{serialization::Payload::Of(std::move(removed)),
                    serialization::Payload::Of(std::move(added))};
  }
};

// v2 no longer wants Audited events.
class DropAudited final : public EventAdapter {
 public:
  absl::StatusOr<EventSeq> FromJournal(const serialization::Payload&,
                                       std::string_view) const override {
    return EventSeq{};
  }
};

// Writes `events` as 1, 2, ... of `id` with `serialization`, as the
// version that made them did.
void StoreAsVersion(
    const std::string& path, const std::string& id,
    std::shared_ptr<const serialization::SerializationRegistry> serialization,
    std::vector<serialization::Payload> events) {
  RocksDbOptions options;
  options.path = path;
  options.fsync = false;
  absl::StatusOr<RocksDbStore> store = RocksDbStore::Open(options);
  ASSERT_OK(store);
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      store->NewJournal(std::move(serialization));
  ASSERT_OK(journal);
  std::vector<AtomicWrite> writes;
  for (size_t i = 0; i < events.size(); ++i) {
    writes.push_back(
        testing::Single(id, static_cast<int64_t>(i) + 1, std::move(events[i])));
  }
  testing::WriteOutcome written =
      testing::WriteMessages(**journal, std::move(writes));
  ASSERT_OK(written.batch);
  for (const absl::Status& s : written.per_write) ASSERT_OK(s);
}

struct Recovered {
  std::vector<std::string> log;  // what each recovered event did
  int64_t last_sequence_nr;
};
struct RecoveryFailed {
  std::string cause;
};
struct AddItem {
  std::string name;
  int quantity;
};
struct Added {};

// The v2 cart: logs each event it recovers.
class Cart final : public PersistentActor {
 public:
  Cart(std::string id, ActorRef probe, Recovery recovery = {})
      : id_(std::move(id)), probe_(std::move(probe)), recovery_(recovery) {
    Recover<v2::ItemAddedT>([this](const v2::ItemAddedT& e) {
      log_.push_back(absl::StrCat("add ", e.name, " x", e.quantity));
    });
    Recover<v2::ItemRemovedT>([this](const v2::ItemRemovedT& e) {
      log_.push_back(absl::StrCat("remove ", e.name));
    });
    Recover<v2::CartEmptiedT>(
        [this](const v2::CartEmptiedT&) { log_.push_back("empty"); });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      probe_.Tell(Recovered{log_, LastSequenceNr()});
    });
    Command<AddItem>([this](const AddItem& c) {
      v2::ItemAddedT added;
      added.name = c.name;
      added.quantity = c.quantity;
      Persist(std::move(added),
              [this](const v2::ItemAddedT&) { probe_.Tell(Added{}); });
    });
  }

  std::string PersistenceId() const override { return id_; }
  Recovery GetRecovery() const override { return recovery_; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload*) override {
    probe_.Tell(RecoveryFailed{cause.ToString()});
  }

 private:
  std::string id_;
  ActorRef probe_;
  Recovery recovery_;
  std::vector<std::string> log_;
};

class SchemaEvolutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<testing::TempDir> dir = testing::TempDir::Make();
    ASSERT_OK(dir);
    dir_.emplace(*std::move(dir));
    path_ = dir_->path() + "/store";
  }

  // A system of the second version over the store: the splitter bound by
  // config, the dropper in code.
  // `journal_config`: more settings of the journal plugin.
  std::unique_ptr<TestKit> V2System(const std::string& journal_config = "") {
    auto kit = std::make_unique<TestKit>(absl::StrCat(
        "akka.persistence.journal.rocksdb {\n"
        "  dir = \"",
        path_, "\"\n  fsync = off\n", journal_config, "\n",
        "  event-adapters { split = item-replaced-splitter }\n"
        "  event-adapter-bindings { \"shop.ItemReplaced\" = split }\n"
        "}\n"));
    PersistenceSetup setup;
    setup.serialization = V2Serialization();
    setup.event_adapters["item-replaced-splitter"] =
        std::make_shared<SplitReplaced>();
    setup.bind_event_adapters = [](std::string_view, EventAdapters& adapters) {
      return adapters.Bind<v2::AuditedT>(std::make_shared<DropAudited>());
    };
    absl::Status s = Persistence::Get(kit->Sys()).Setup(std::move(setup));
    EXPECT_OK(s);
    return kit;
  }

  std::optional<testing::TempDir> dir_;
  std::string path_;
};

template <typename T>
serialization::Payload V1(std::function<void(T&)> fill) {
  T event;
  fill(event);
  return serialization::Payload::Of(std::move(event));
}

TEST_F(SchemaEvolutionTest, TheNextVersionRecoversWhatTheFirstStored) {
  StoreAsVersion(
      path_, "cart-1", V1Serialization(),
      {V1<v1::ItemAddedT>([](auto& e) { e.name = "apple"; }),
       V1<v1::ItemAddedT>([](auto& e) { e.name = "pear"; }),
       V1<v1::ItemReplacedT>([](auto& e) {
         e.old_name = "pear";
         e.new_name = "plum";
       }),
       V1<v1::AuditedT>([](auto& e) { e.note = "looked at by bob"; }),
       V1<v1::CartClearedT>([](auto&) {}),
       V1<v1::ItemAddedT>([](auto& e) { e.name = "fig"; })});
  {
    std::unique_ptr<TestKit> kit = V2System();
    ActorRef cart = kit->Sys().ActorOf(
        Props::Create<Cart>(std::string("cart-1"), kit->TestActor()));
    Recovered recovered = kit->ExpectMsg<Recovered>();
    EXPECT_THAT(recovered.log,
                ElementsAre("add apple x1", "add pear x1", "remove pear",
                            "add plum x1", "empty", "add fig x1"));
    EXPECT_EQ(recovered.last_sequence_nr, 6);
    // The new version writes its own form after the old events.
    cart.Tell(AddItem{"kiwi", 3});
    kit->ExpectMsg<Added>();
  }
  std::unique_ptr<TestKit> kit = V2System();
  kit->Sys().ActorOf(
      Props::Create<Cart>(std::string("cart-1"), kit->TestActor()));
  Recovered again = kit->ExpectMsg<Recovered>();
  EXPECT_THAT(again.log,
              ElementsAre("add apple x1", "add pear x1", "remove pear",
                          "add plum x1", "empty", "add fig x1", "add kiwi x3"));
  EXPECT_EQ(again.last_sequence_nr, 7);
}

// A recovery reads its events a batch at a time and takes a short batch for
// the stream's end: adapters that split or drop events at a batch's edge
// must not end it early (nor make it skip the events after).
TEST_F(SchemaEvolutionTest, SplitsAndDropsAcrossReplayBatchesLoseNoEvent) {
  auto added = [](const char* name) {
    return V1<v1::ItemAddedT>([name](auto& e) { e.name = name; });
  };
  auto audited = [] {
    return V1<v1::AuditedT>([](auto& e) { e.note = "looked at"; });
  };
  StoreAsVersion(path_, "cart-3", V1Serialization(),
                 {added("apple"), V1<v1::ItemReplacedT>([](auto& e) {
                    e.old_name = "apple";
                    e.new_name = "plum";
                  }),
                  added("fig"), audited(), audited(), added("kiwi"),
                  added("lime"), audited()});
  std::unique_ptr<TestKit> kit = V2System("replay-batch-size = 2");
  ActorRef cart = kit->Sys().ActorOf(
      Props::Create<Cart>(std::string("cart-3"), kit->TestActor()));
  Recovered recovered = kit->ExpectMsg<Recovered>();
  EXPECT_THAT(recovered.log,
              ElementsAre("add apple x1", "remove apple", "add plum x1",
                          "add fig x1", "add kiwi x1", "add lime x1"));
  EXPECT_EQ(recovered.last_sequence_nr, 8);
  kit->Watch(cart);
  kit->Sys().Stop(cart);
  kit->ExpectTerminated(cart);
  // replay_max counts the events the adapters make, a stored event's
  // together: the split one takes the last of three.
  Recovery three;
  three.replay_max = 3;
  kit->Sys().ActorOf(
      Props::Create<Cart>(std::string("cart-3"), kit->TestActor(), three));
  Recovered limited = kit->ExpectMsg<Recovered>();
  EXPECT_THAT(limited.log,
              ElementsAre("add apple x1", "remove apple", "add plum x1"));
  EXPECT_EQ(limited.last_sequence_nr, 8);
}

// After the first batch the replay goes by sequence-number range: a split
// inside a range must not cut the range short (the event after it, 4, was
// lost when a range was also bounded by a count).
TEST_F(SchemaEvolutionTest, ASplitInsideARangeLosesNoEvent) {
  auto added = [](const char* name) {
    return V1<v1::ItemAddedT>([name](auto& e) { e.name = name; });
  };
  StoreAsVersion(
      path_, "cart-4", V1Serialization(),
      {added("apple"), added("fig"), V1<v1::ItemReplacedT>([](auto& e) {
         e.old_name = "apple";
         e.new_name = "plum";
       }),
       added("kiwi"), added("lime"), added("pear")});
  std::unique_ptr<TestKit> kit = V2System("replay-batch-size = 2");
  kit->Sys().ActorOf(
      Props::Create<Cart>(std::string("cart-4"), kit->TestActor()));
  Recovered recovered = kit->ExpectMsg<Recovered>();
  EXPECT_THAT(
      recovered.log,
      ElementsAre("add apple x1", "add fig x1", "remove apple", "add plum x1",
                  "add kiwi x1", "add lime x1", "add pear x1"));
  EXPECT_EQ(recovered.last_sequence_nr, 6);
}

TEST_F(SchemaEvolutionTest, AManifestNobodyKnowsFailsTheRecoveryNamingIt) {
  StoreAsVersion(path_, "cart-2", V1Serialization(),
                 {V1<v1::ItemAddedT>([](auto& e) { e.name = "apple"; }),
                  V1<v1::CouponAppliedT>([](auto& e) { e.code = "XMAS"; })});
  std::unique_ptr<TestKit> kit = V2System();
  kit->Sys().ActorOf(
      Props::Create<Cart>(std::string("cart-2"), kit->TestActor()));
  RecoveryFailed failed = kit->ExpectMsg<RecoveryFailed>();
  EXPECT_THAT(failed.cause, HasSubstr("cart-2"));
  EXPECT_THAT(failed.cause, HasSubstr("sequence nr 2"));
  EXPECT_THAT(failed.cause, HasSubstr("shop.CouponApplied"));
}

}  // namespace
}  // namespace cairn::persistence
