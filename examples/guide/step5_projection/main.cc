// Step 5 of docs/GUIDE.md: a projection. The tagged deposits of step 4
// feed a read model, each account's total, kept in a RocksDB database of
// its own with the offset of the last event it counted. Each run deposits,
// then runs the projection over what is new since the last run (Akka
// Projections' exactly-once, over CurrentEventsByTag) and prints the
// totals.
//
//   bazel run //examples/guide/step5_projection -- /tmp/guide5
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/future.h"
#include "actor/props.h"
#include "hocon/config.h"
#include "nlohmann/json.hpp"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/projection/projection.h"
#include "persistence/rocksdb/rocksdb_projection_store.h"
#include "persistence/storage/projection_store.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/tagged.h"
#include "serialization/json_serialization.h"
#include "serialization/payload.h"
#include "serialization/serialization.h"

namespace {

using cairn::actor::ActorRef;
using cairn::actor::ActorSystem;
using cairn::actor::Promise;
using cairn::actor::Props;
using cairn::persistence::EventEnvelope;
using cairn::persistence::EventSourcedProvider;
using cairn::persistence::ExactlyOnceHandler;
using cairn::persistence::PersistentActor;
using cairn::persistence::Projection;
using cairn::persistence::ProjectionCompleted;
using cairn::persistence::ProjectionFailed;
using cairn::persistence::ProjectionId;
using cairn::persistence::ProjectionOffset;
using cairn::persistence::ProjectionProgress;
using cairn::persistence::ProjectionStore;
using cairn::persistence::ProjectionTransaction;
using cairn::persistence::Tagged;
using cairn::serialization::Payload;

struct Deposit {
  int64_t amount = 0;
};

struct Deposited {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposited, amount)

class Account final : public PersistentActor {
 public:
  explicit Account(std::string id) : id_(std::move(id)) {
    Recover<Deposited>([this](const Deposited& e) { balance_ += e.amount; });
    Command<Deposit>([this](const Deposit& d) {
      // The event, with the tags a query finds it by. The handler gets the
      // Tagged; a replay gets the Deposited alone.
      Persist(Tagged{Payload::Of(Deposited{d.amount}), {"deposits"}},
              [this](const Tagged& t) {
                balance_ += t.event.As<Deposited>()->amount;
                Sender().Tell(balance_);
              });
    });
  }

  std::string PersistenceId() const override { return "account-" + id_; }

 private:
  std::string id_;
  int64_t balance_ = 0;
};

absl::StatusOr<std::unique_ptr<ActorSystem>> StartSystem(
    const std::string& dir) {
  absl::StatusOr<cairn::hocon::Config> config =
      cairn::hocon::Config::ParseString(absl::StrCat(
          "akka.loglevel = WARNING\n",
          "akka.persistence.journal.rocksdb.dir = \"", dir, "\"\n"));
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      ActorSystem::Create("guide", *config);
  if (!system.ok()) return system.status();

  auto serialization =
      std::make_shared<cairn::serialization::SerializationRegistry>();
  absl::Status s = cairn::serialization::RegisterJson<Deposited>(
      *serialization, "guide.Deposited");
  if (!s.ok()) return s;
  cairn::persistence::PersistenceSetup setup;
  setup.serialization = std::move(serialization);
  s = cairn::persistence::Persistence::Get(**system).Setup(std::move(setup));
  if (!s.ok()) return s;
  return system;
}

// The read model: each account's total deposits, under "total/<id>".
// Its writes go through `tx`, which the projection commits with the
// offset in one atomic write: each event is counted exactly once.
class Totals final : public ExactlyOnceHandler {
 public:
  absl::Status Process(const EventEnvelope& e,
                       ProjectionTransaction& tx) override {
    const std::string key = "total/" + e.persistence_id;
    absl::StatusOr<std::optional<std::string>> stored = tx.Get(key);
    if (!stored.ok()) return stored.status();
    int64_t total = 0;
    if (stored->has_value() && !absl::SimpleAtoi(**stored, &total)) {
      return absl::DataLossError(absl::StrCat(key, " is not a number"));
    }
    total += e.event.As<Deposited>()->amount;
    tx.Put(key, absl::StrCat(total));
    return absl::OkStatus();
  }
};

// The projection's status observer: completes `done` when the projection
// has handled everything its query had (then it stops by itself).
class WhenCompleted final : public cairn::actor::Actor {
 public:
  explicit WhenCompleted(Promise<ProjectionOffset> done) {
    Receive<ProjectionCompleted>([done](const ProjectionCompleted& c) mutable {
      done.TrySetValue(c.offset);
    });
    Receive<ProjectionProgress>([](const ProjectionProgress&) {});
    // It starts again after a back-off (3 s, doubling) from the stored
    // offset.
    Receive<ProjectionFailed>([](const ProjectionFailed& f) {
      std::fprintf(stderr, "projection failed: %s\n", f.cause.c_str());
    });
  }
};

// Runs the projection over the deposits stored since it last ran, then
// prints the read model.
absl::Status RunProjection(ActorSystem& system, const std::string& dir) {
  absl::StatusOr<std::shared_ptr<ProjectionStore>> store =
      cairn::persistence::RocksDbProjectionStore::Open(dir + "/read-model");
  if (!store.ok()) return store.status();
  const ProjectionId id{"totals", "deposits"};
  absl::StatusOr<ProjectionOffset> start = (*store)->ReadOffset(id);
  if (!start.ok()) return start.status();
  absl::PrintF("projection starts after offset %d\n", start->offset);

  Promise<ProjectionOffset> done;
  ActorRef observer =
      system.ActorOf(Props::Create<WhenCompleted>(done), "totals-observer");
  system.ActorOf(
      Projection::ExactlyOnce(
          id, EventSourcedProvider::CurrentEventsByTag("", "deposits"), *store,
          [] { return std::make_unique<Totals>(); })
          .WithStatusObserver(observer)
          .Props(),
      "totals");
  cairn::actor::Future<ProjectionOffset> end = done.GetFuture();
  if (!end.wait_for(absl::Seconds(30))) {
    return absl::DeadlineExceededError("the projection did not complete");
  }
  absl::PrintF("projection completed at offset %d\n", end.get().offset);

  return (*store)->ForEach("total/",
                           [](std::string_view key, std::string_view value) {
                             absl::PrintF("%s: %s\n", key.substr(6), value);
                             return true;  // go on
                           });
}

absl::Status Run(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system = StartSystem(dir);
  if (!system.ok()) return system.status();
  ActorRef alice = (*system)->ActorOf(Props::Create<Account>("alice"), "alice");
  ActorRef bob = (*system)->ActorOf(Props::Create<Account>("bob"), "bob");
  try {
    auto deposit = [](const ActorRef& account, int64_t amount) {
      cairn::actor::Ask<int64_t>(account, Deposit{amount}, absl::Seconds(10))
          .get();
    };
    deposit(alice, 100);
    deposit(bob, 30);
    deposit(alice, 50);
  } catch (const std::exception& e) {
    return absl::UnavailableError(e.what());
  }
  absl::Status projected = RunProjection(**system, dir);
  (*system)->Terminate().wait();
  return projected;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
    return 2;
  }
  absl::Status status = Run(argv[1]);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
