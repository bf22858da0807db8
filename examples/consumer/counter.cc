// A program of a project that depends on cairn: a persistent counter on
// the embedded RocksDB journal in the directory given. Each run adds
// consumer.counter.by (1, from this program's reference.conf) and prints
// the count, so a second run prints 2: the first run's event came back
// from disk.
//
//   bazel run //:counter -- /tmp/counter-data
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/props.h"
#include "hocon/config.h"
#include "nlohmann/json.hpp"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "serialization/json_serialization.h"
#include "serialization/serialization.h"

namespace {

using cairn::actor::ActorRef;
using cairn::actor::ActorSystem;
using cairn::actor::Ask;
using cairn::actor::Props;
using cairn::persistence::PersistentActor;

struct Increment {};  // the command
struct Incremented {  // its event, stored as JSON
  int by = 1;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Incremented, by)

class Counter final : public PersistentActor {
 public:
  explicit Counter(int by) : by_(by) {
    Recover<Incremented>([this](const Incremented& e) { count_ += e.by; });
    Command<Increment>([this](const Increment&) {
      Persist(Incremented{by_}, [this](const Incremented& e) {
        count_ += e.by;
        Sender().Tell(count_);
      });
    });
  }
  std::string PersistenceId() const override { return "counter"; }

 private:
  int by_;
  int count_ = 0;
};

absl::Status Run(const std::string& dir) {
  absl::StatusOr<cairn::hocon::Config> config =
      cairn::hocon::Config::ParseString(absl::StrCat(
          "akka.loglevel = WARNING\n",
          "akka.persistence.journal.rocksdb.dir = \"", dir, "\"\n"));
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      ActorSystem::Create("consumer", *config);
  if (!system.ok()) return system.status();

  auto serialization =
      std::make_shared<cairn::serialization::SerializationRegistry>();
  absl::Status registered = cairn::serialization::RegisterJson<Incremented>(
      *serialization, "consumer.Incremented");
  if (!registered.ok()) return registered;
  absl::Status setup = cairn::persistence::Persistence::Get(**system).Setup(
      {.serialization = std::move(serialization)});
  if (!setup.ok()) return setup;

  // The application's config over every linked reference.conf: ours too.
  absl::StatusOr<int> by = (*system)->Settings().GetInt("consumer.counter.by");
  if (!by.ok()) return by.status();
  ActorRef counter = (*system)->ActorOf(Props::Create<Counter>(*by), "counter");
  try {
    int count = Ask<int>(counter, Increment{}, absl::Seconds(10)).get();
    std::printf("count: %d\n", count);
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
    std::fprintf(stderr, "counter: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
