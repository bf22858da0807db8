// Step 3 of docs/GUIDE.md: the account under a BackoffSupervisor. A bad
// deposit makes the account throw; the supervisor stops it and starts it
// again after a back-off, and the new incarnation recovers its balance
// from the journal.
//
//   bazel run //examples/guide/step3_backoff -- /tmp/guide3
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/any_message.h"
#include "actor/ask.h"
#include "actor/exceptions.h"
#include "actor/props.h"
#include "backoff/backoff_options.h"
#include "backoff/backoff_supervisor.h"
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
using cairn::actor::AnyMessage;
using cairn::actor::Ask;
using cairn::actor::Props;
using cairn::backoff::Backoff;
using cairn::backoff::BackoffSupervisor;
using cairn::persistence::PersistentActor;
using cairn::persistence::RecoveryCompleted;

struct Deposit {
  int64_t amount = 0;
};
struct GetBalance {};
// What the supervisor answers while the account is stopped.
struct Restarting {};

struct Deposited {
  int64_t amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Deposited, amount)

class Account final : public PersistentActor {
 public:
  explicit Account(std::string id) : id_(std::move(id)) {
    Recover<Deposited>([this](const Deposited& e) { balance_ += e.amount; });
    Recover<RecoveryCompleted>([this](const RecoveryCompleted&) {
      absl::PrintF("recovered %s: balance %d after %d events\n", id_, balance_,
                   LastSequenceNr());
    });
    Command<Deposit>([this](const Deposit& d) {
      // A failure inside an actor is an exception.
      if (d.amount <= 0) {
        throw std::invalid_argument(
            absl::StrCat("a deposit must be positive, not ", d.amount));
      }
      Persist(Deposited{d.amount}, [this](const Deposited& e) {
        balance_ += e.amount;
        Sender().Tell(balance_);
      });
    });
    Command<GetBalance>([this](const GetBalance&) { Sender().Tell(balance_); });
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

// The balance, once the account answers again. While the supervisor waits
// to start it, it answers Restarting; an Ask that reached the failing
// account is not answered. Either way: ask again a little later.
absl::StatusOr<int64_t> BalanceWhenBack(const ActorRef& account) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    try {
      AnyMessage reply =
          Ask<AnyMessage>(account, GetBalance{}, absl::Seconds(1)).get();
      if (const int64_t* balance = reply.As<int64_t>()) return *balance;
    } catch (const cairn::actor::AskTimeoutException&) {
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return absl::DeadlineExceededError("the account did not come back in 30 s");
}

absl::Status Run(const std::string& dir) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system = StartSystem(dir);
  if (!system.ok()) return system.status();
  // The account under a supervisor that starts it again 200 ms after it
  // stops, then 400 ms, ... up to 10 s (each up to 20% more, at random).
  cairn::backoff::BackoffOptions options =
      Backoff::OnStop(Props::Create<Account>("alice"), "alice",
                      absl::Milliseconds(200), absl::Seconds(10), 0.2)
          .WithDefaultStoppingStrategy()
          .WithReplyWhileStopped(Restarting{});
  ActorRef alice =
      (*system)->ActorOf(BackoffSupervisor::Props(options), "alice-supervisor");
  try {
    auto deposit = [&](int64_t amount) {
      int64_t balance =
          Ask<int64_t>(alice, Deposit{amount}, absl::Seconds(10)).get();
      absl::PrintF("deposited %d: balance %d\n", amount, balance);
    };
    deposit(100);

    absl::PrintF("depositing -5: the account throws and is stopped\n");
    alice.Tell(Deposit{-5});
    absl::StatusOr<int64_t> balance = BalanceWhenBack(alice);
    if (!balance.ok()) return balance.status();
    absl::PrintF("back: balance %d\n", *balance);

    deposit(50);
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
