// Step 2 of docs/GUIDE.md: the account of step 1 with snapshots. Each run
// deposits 100 and 50, saves a snapshot, then deposits 25; the next run
// recovers from that snapshot and replays only the event after it.
//
//   bazel run //examples/guide/step2_snapshot -- /tmp/guide2
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>

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
#include "persistence/messages.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "serialization/json_serialization.h"
#include "serialization/serialization.h"

namespace {

using cairn::actor::ActorRef;
using cairn::actor::ActorSystem;
using cairn::actor::Props;
using cairn::persistence::PersistentActor;
using cairn::persistence::RecoveryCompleted;
using cairn::persistence::SaveSnapshotSuccess;
using cairn::persistence::SnapshotOffer;

struct Deposit {
  int64_t amount = 0;
};
struct TakeSnapshot {};  // answered with the snapshot's sequence number

struct Deposited {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposited, amount)

// The snapshot: the whole state of an account, stored as JSON too.
struct AccountState {
  int64_t balance = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AccountState, balance)

class Account final : public PersistentActor {
 public:
  explicit Account(std::string id) : id_(std::move(id)) {
    // The newest snapshot comes first, then only the events after it.
    Recover<SnapshotOffer>([this](const SnapshotOffer& offer) {
      balance_ = offer.snapshot.As<AccountState>()->balance;
    });
    Recover<Deposited>([this](const Deposited& e) { balance_ += e.amount; });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      absl::PrintF(
          "recovered %s: balance %d (snapshot at event %d, then %d events "
          "replayed)\n",
          id_, balance_, SnapshotSequenceNr(),
          LastSequenceNr() - SnapshotSequenceNr());
    });
    Command<Deposit>([this](const Deposit& d) {
      Persist(Deposited{d.amount}, [this](const Deposited& e) {
        balance_ += e.amount;
        Sender().Tell(balance_);
      });
    });
    // SaveSnapshot stores the state at LastSequenceNr(); its outcome comes
    // back as a command.
    Command<TakeSnapshot>([this](const TakeSnapshot&) {
      snapshot_requester_ = Sender();
      SaveSnapshot(AccountState{balance_});
    });
    Command<SaveSnapshotSuccess>([this](const SaveSnapshotSuccess& s) {
      snapshot_requester_.Tell(s.metadata.sequence_nr);
    });
  }

  std::string PersistenceId() const override { return "account-" + id_; }

 private:
  std::string id_;
  int64_t balance_ = 0;
  ActorRef snapshot_requester_;
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
  if (s.ok()) {
    s = cairn::serialization::RegisterJson<AccountState>(*serialization,
                                                         "guide.AccountState");
  }
  if (!s.ok()) return s;
  cairn::persistence::PersistenceSetup setup;
  setup.serialization = std::move(serialization);
  s = cairn::persistence::Persistence::Get(**system).Setup(std::move(setup));
  if (!s.ok()) return s;
  return system;
}

absl::Status Run(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system = StartSystem(dir);
  if (!system.ok()) return system.status();
  ActorRef alice = (*system)->ActorOf(Props::Create<Account>("alice"), "alice");
  try {
    auto deposit = [&](int64_t amount) {
      int64_t balance =
          cairn::actor::Ask<int64_t>(alice, Deposit{amount}, absl::Seconds(10))
              .get();
      absl::PrintF("deposited %d: balance %d\n", amount, balance);
    };
    deposit(100);
    deposit(50);
    int64_t at =
        cairn::actor::Ask<int64_t>(alice, TakeSnapshot{}, absl::Seconds(10))
            .get();
    absl::PrintF("snapshot saved at event %d\n", at);
    deposit(25);
  } catch (const std::exception& e) {
    return absl::UnavailableError(e.what());
  }
  (*system)->Terminate().wait();
  return absl::OkStatus();
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
