#include "bench/persistence/persistence_benchmark_cairn.h"

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/persistence_benchmark_system.h"
#include "persistence/messages.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/tagged.h"

namespace cairn::bench {
namespace {

using persistence::PersistentActor;
using persistence::Tagged;
using serialization::Payload;

// A command: persist Event{value} (kPersistAll: `batch` of them).
struct WriteCommand {
  int64_t value = 0;
};

// What the actors report to the thread that runs the benchmark.
struct Tally {
  explicit Tally(int actors) : recovered(actors), written(actors) {}
  Countdown recovered;
  Countdown written;
  std::atomic<int64_t> replayed{0};
};

// Persists its share of the load, counting persist handlers; replays its
// stream on start, counting events.
class BenchActor final : public PersistentActor {
 public:
  BenchActor(std::string id, WriteLoad load, Tally* tally)
      : id_(std::move(id)), load_(load), tally_(tally) {
    Recover<Event>([this](const Event&) { ++replayed_; });
    Recover<persistence::RecoveryCompleted>(
        [this](const persistence::RecoveryCompleted&) {
          tally_->replayed.fetch_add(replayed_, std::memory_order_relaxed);
          tally_->recovered.CountDown();
        });
    Command<WriteCommand>([this](const WriteCommand& c) { OnWrite(c); });
  }

  std::string PersistenceId() const override { return id_; }

 protected:
  void OnRecoveryFailure(const absl::Status& cause, const Payload*) override {
    tally_->recovered.Fail(cause);
  }
  void OnPersistFailure(const absl::Status& cause, const Payload&,
                        int64_t) override {
    tally_->written.Fail(cause);
  }
  void OnPersistRejected(const absl::Status& cause, const Payload&,
                         int64_t) override {
    tally_->written.Fail(cause);
  }

 private:
  void OnWrite(const WriteCommand& command) {
    if (load_.tags.empty()) {
      Write(Event{command.value});
    } else {
      Write(Tagged{Payload::Of(Event{command.value}), load_.tags});
    }
  }

  // E: Event, or a Tagged holding one.
  template <typename E>
  void Write(E event) {
    auto handler = [this](const E&) { CountWritten(); };
    switch (load_.mode) {
      case PersistMode::kPersist:
        Persist(std::move(event), handler);
        break;
      case PersistMode::kPersistAsync:
        PersistAsync(std::move(event), handler);
        break;
      case PersistMode::kPersistAll:
        PersistAll(std::vector<E>(load_.batch, event), handler);
        break;
    }
  }

  void CountWritten() {
    if (++written_ == load_.events_per_actor) tally_->written.CountDown();
  }

  const std::string id_;
  const WriteLoad load_;
  Tally* const tally_;
  int64_t replayed_ = 0;
  int64_t written_ = 0;
};

// Starts actors bench-0 to bench-<count - 1> with `load`, reporting to
// `tally`, which must outlive the system.
std::vector<actor::ActorRef> Spawn(actor::ActorSystem& system, int count,
                                   const WriteLoad& load, Tally* tally) {
  std::vector<actor::ActorRef> actors;
  actors.reserve(count);
  for (int i = 0; i < count; ++i) {
    actors.push_back(system.ActorOf(
        actor::Props::Create<BenchActor>(BenchPersistenceId(i), load, tally)));
  }
  return actors;
}

// Starts one actor of stream `id`, to be recovered only.
actor::ActorRef SpawnOne(actor::ActorSystem& system, std::string id,
                         Tally* tally) {
  return system.ActorOf(
      actor::Props::Create<BenchActor>(std::move(id), WriteLoad(), tally));
}

// Round-robin over the actors, so that every actor has work from the start.
void SendCommands(const std::vector<actor::ActorRef>& actors,
                  const WriteLoad& load) {
  const int64_t commands = load.events_per_actor / load.batch;
  for (int64_t c = 0; c < commands; ++c) {
    for (const actor::ActorRef& a : actors) a.Tell(WriteCommand{c});
  }
}

}  // namespace

absl::StatusOr<double> CairnWrite(const std::string& dir, const WriteLoad& load,
                                  SideCost* cost) {
  return CairnWriteWithConfig(RocksDbJournalConfig(dir, load.fsync), load,
                              cost);
}

absl::StatusOr<double> CairnRecover(const std::string& dir, int actors,
                                    int64_t events_per_actor, SideCost* cost) {
  return CairnRecoverWithConfig(RocksDbJournalConfig(dir, /*fsync=*/false),
                                actors, events_per_actor, {}, cost);
}

absl::StatusOr<double> CairnWriteWithConfig(
    const std::string& persistence_config, const WriteLoad& load,
    SideCost* cost) {
  Tally tally(load.actors);  // outlives the system, which reports to it
  absl::StatusOr<std::unique_ptr<BenchSystem>> system =
      BenchSystem::StartWithConfig(persistence_config);
  if (!system.ok()) return system.status();
  std::vector<actor::ActorRef> actors =
      Spawn((*system)->system(), load.actors, load, &tally);
  if (absl::Status s = tally.recovered.Wait(); !s.ok()) return s;

  Stopwatch clock;
  SendCommands(actors, load);
  if (absl::Status s = tally.written.Wait(); !s.ok()) return s;
  const double seconds = clock.Seconds();
  const double events =
      static_cast<double>(load.actors * load.events_per_actor);
  if (cost != nullptr) *cost = SideCost::Of(clock, events);
  return events / seconds;
}

absl::StatusOr<double> CairnRecoverWithConfig(
    const std::string& persistence_config, int actors, int64_t events_per_actor,
    const ClockHooks& hooks, SideCost* cost) {
  Tally opener(1);
  Tally tally(actors);
  absl::StatusOr<std::unique_ptr<BenchSystem>> system =
      BenchSystem::StartWithConfig(persistence_config);
  if (!system.ok()) return system.status();
  SpawnOne((*system)->system(), "bench-opener", &opener);
  if (absl::Status s = opener.recovered.Wait(); !s.ok()) return s;

  if (hooks.started) hooks.started();
  Stopwatch clock;
  Spawn((*system)->system(), actors, WriteLoad(), &tally);
  if (absl::Status s = tally.recovered.Wait(); !s.ok()) return s;
  const double seconds = clock.Seconds();
  const int64_t expected = actors * events_per_actor;
  if (cost != nullptr) *cost = SideCost::Of(clock, expected);
  if (hooks.stopped) hooks.stopped();
  if (const int64_t replayed = tally.replayed.load(); replayed != expected) {
    return absl::DataLossError(
        absl::StrCat("replayed ", replayed, " events instead of ", expected));
  }
  return static_cast<double>(expected) / seconds;
}

}  // namespace cairn::bench
