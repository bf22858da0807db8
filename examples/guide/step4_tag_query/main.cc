// Step 4 of docs/GUIDE.md: tagged events and a query by tag. Each run
// deposits into two accounts, tagging every event "deposits", then lists
// every event stored with that tag, from every run, in offset order.
//
//   bazel run //examples/guide/step4_tag_query -- /tmp/guide4
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/props.h"
#include "hocon/config.h"
#include "nlohmann/json.hpp"
#include "persistence/persistence.h"
#include "persistence/persistence_query.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/collect_query.h"
#include "persistence/storage/read_journal.h"
#include "persistence/storage/tagged.h"
#include "serialization/json_serialization.h"
#include "serialization/payload.h"
#include "serialization/serialization.h"

namespace {

using cairn::actor::ActorRef;
using cairn::actor::ActorSystem;
using cairn::actor::Props;
using cairn::persistence::EventEnvelope;
using cairn::persistence::PersistentActor;
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

// Every event tagged "deposits" so far: Akka's CurrentEventsByTag, read to
// its end (CollectAll blocks: for main() and tools, never inside an actor).
absl::Status ListDeposits(ActorSystem& system) {
  absl::StatusOr<cairn::persistence::ReadJournal*> queries =
      cairn::persistence::PersistenceQuery::Get(system).ReadJournalFor("");
  if (!queries.ok()) return queries.status();
  auto stream = (*queries)->CurrentEventsByTag("deposits", /*offset=*/0);
  absl::StatusOr<std::vector<EventEnvelope>> events =
      cairn::persistence::CollectAll(*stream, absl::Seconds(10));
  if (!events.ok()) return events.status();
  for (const EventEnvelope& e : *events) {
    absl::PrintF("offset %d: %s event %d, deposited %d\n", e.offset,
                 e.persistence_id, e.sequence_nr,
                 e.event.As<Deposited>()->amount);
  }
  return absl::OkStatus();
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
  absl::Status listed = ListDeposits(**system);
  (*system)->Terminate().wait();
  return listed;
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
