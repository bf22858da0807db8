#include "bench/persistence_benchmark_cairn.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "bench/persistence_benchmark_support.h"
#include "hocon/config.h"
#include "persistence/messages.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/serialization.h"

namespace cairn::bench {
namespace {

using persistence::Payload;
using persistence::PersistentActor;

// The event: 8 bytes once serialized.
struct Event {
  int64_t value = 0;
};

// A command: persist Event{value} (kPersistAll: `batch` of them).
struct WriteCommand {
  int64_t value = 0;
};

std::string EncodeEvent(const Event& event) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<char>(
        (static_cast<uint64_t>(event.value) >> (8 * i)) & 0xff);
  }
  return bytes;
}

absl::StatusOr<Event> DecodeEvent(std::string_view bytes) {
  if (bytes.size() != 8) return absl::DataLossError("an Event is 8 bytes");
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return Event{static_cast<int64_t>(value)};
}

absl::StatusOr<std::shared_ptr<const persistence::SerializationRegistry>>
NewRegistry() {
  auto registry = std::make_shared<persistence::SerializationRegistry>();
  absl::Status status = registry->Register<Event>(
      "bench.Event.v1",
      [](const Event& e) -> absl::StatusOr<std::string> {
        return EncodeEvent(e);
      },
      DecodeEvent);
  if (!status.ok()) return status;
  return std::shared_ptr<const persistence::SerializationRegistry>(
      std::move(registry));
}

// Waits for `count` actors to reach a point (recovered, done writing); the
// first failure an actor reports ends the wait at once, so that a broken
// store fails the run instead of hanging it.
class Countdown {
 public:
  explicit Countdown(int64_t count) : left_(count) {}

  void CountDown() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--left_ == 0) done_.notify_all();
  }
  void Fail(const absl::Status& cause) {
    std::lock_guard<std::mutex> lock(mu_);
    // A copy of its own: absl::Status's shared representation is invisible
    // to ThreadSanitizer (Debian's Abseil is not instrumented).
    if (failure_.ok()) failure_ = absl::Status(cause.code(), cause.message());
    done_.notify_all();
  }
  [[nodiscard]] absl::Status Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return left_ <= 0 || !failure_.ok(); });
    return failure_;
  }

 private:
  std::mutex mu_;
  std::condition_variable done_;
  int64_t left_;          // guarded by mu_
  absl::Status failure_;  // guarded by mu_
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
    auto handler = [this](const Event&) { CountWritten(); };
    switch (load_.mode) {
      case PersistMode::kPersist:
        Persist(Event{command.value}, handler);
        break;
      case PersistMode::kPersistAsync:
        PersistAsync(Event{command.value}, handler);
        break;
      case PersistMode::kPersistAll:
        PersistAll(std::vector<Event>(load_.batch, Event{command.value}),
                   handler);
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

// An actor system with its RocksDB journal in `dir`, terminated (and the
// store closed) when destroyed.
class BenchSystem {
 public:
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<BenchSystem>> Start(
      const std::string& dir, bool fsync);
  ~BenchSystem() { system_->Terminate().wait(); }
  BenchSystem(const BenchSystem&) = delete;
  BenchSystem& operator=(const BenchSystem&) = delete;

  // Starts actors bench-0 to bench-<count - 1> with `load`, reporting to
  // `tally`, which must outlive this system.
  std::vector<actor::ActorRef> Spawn(int count, const WriteLoad& load,
                                     Tally* tally);
  // Starts one actor of stream `id`, to be recovered only.
  actor::ActorRef SpawnOne(std::string id, Tally* tally);

 private:
  explicit BenchSystem(std::unique_ptr<actor::ActorSystem> system)
      : system_(std::move(system)) {}

  std::unique_ptr<actor::ActorSystem> system_;
};

absl::StatusOr<std::unique_ptr<BenchSystem>> BenchSystem::Start(
    const std::string& dir, bool fsync) {
  // The process-exit hook is off so that Ctrl-C ends the run at once (its
  // temporary store left behind): a benchmark's data is not worth a
  // coordinated shutdown.
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
      absl::StrCat("akka.loglevel = WARNING\n",
                   "akka.coordinated-shutdown.run-by-process-exit-hook = off\n",
                   "akka.persistence.journal.rocksdb { dir = \"", dir,
                   "\", fsync = ", fsync ? "on" : "off", " }\n"));
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("bench", *config);
  if (!system.ok()) return system.status();
  std::unique_ptr<BenchSystem> bench(new BenchSystem(*std::move(system)));
  absl::StatusOr<std::shared_ptr<const persistence::SerializationRegistry>>
      registry = NewRegistry();
  if (!registry.ok()) return registry.status();
  persistence::PersistenceSetup setup;
  setup.serialization = *std::move(registry);
  absl::Status status =
      persistence::Persistence::Get(*bench->system_).Setup(std::move(setup));
  if (!status.ok()) return status;
  return bench;
}

std::vector<actor::ActorRef> BenchSystem::Spawn(int count,
                                                const WriteLoad& load,
                                                Tally* tally) {
  std::vector<actor::ActorRef> actors;
  actors.reserve(count);
  for (int i = 0; i < count; ++i) {
    actors.push_back(system_->ActorOf(
        actor::Props::Create<BenchActor>(BenchPersistenceId(i), load, tally)));
  }
  return actors;
}

actor::ActorRef BenchSystem::SpawnOne(std::string id, Tally* tally) {
  return system_->ActorOf(
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

absl::StatusOr<double> CairnWrite(const std::string& dir,
                                  const WriteLoad& load) {
  Tally tally(load.actors);  // outlives the system, which reports to it
  absl::StatusOr<std::unique_ptr<BenchSystem>> system =
      BenchSystem::Start(dir, load.fsync);
  if (!system.ok()) return system.status();
  std::vector<actor::ActorRef> actors =
      (*system)->Spawn(load.actors, load, &tally);
  if (absl::Status s = tally.recovered.Wait(); !s.ok()) return s;

  Stopwatch clock;
  SendCommands(actors, load);
  if (absl::Status s = tally.written.Wait(); !s.ok()) return s;
  const double seconds = clock.Seconds();
  return static_cast<double>(load.actors * load.events_per_actor) / seconds;
}

absl::StatusOr<double> CairnRecover(const std::string& dir, int actors,
                                    int64_t events_per_actor) {
  Tally opener(1);
  Tally tally(actors);
  absl::StatusOr<std::unique_ptr<BenchSystem>> system =
      BenchSystem::Start(dir, /*fsync=*/false);
  if (!system.ok()) return system.status();
  (*system)->SpawnOne("bench-opener", &opener);
  if (absl::Status s = opener.recovered.Wait(); !s.ok()) return s;

  Stopwatch clock;
  (*system)->Spawn(actors, WriteLoad(), &tally);
  if (absl::Status s = tally.recovered.Wait(); !s.ok()) return s;
  const double seconds = clock.Seconds();
  const int64_t expected = actors * events_per_actor;
  if (const int64_t replayed = tally.replayed.load(); replayed != expected) {
    return absl::DataLossError(
        absl::StrCat("replayed ", replayed, " events instead of ", expected));
  }
  return static_cast<double>(expected) / seconds;
}

}  // namespace cairn::bench
