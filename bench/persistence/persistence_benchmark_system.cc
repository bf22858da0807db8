#include "bench/persistence/persistence_benchmark_system.h"

#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"
#include "hocon/config.h"
#include "persistence/persistence.h"
#include "serialization/serialization.h"

namespace cairn::bench {
namespace {

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

absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
NewRegistry() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status status = registry->Register<Event>(
      "bench.Event.v1",
      [](const Event& e) -> absl::StatusOr<std::string> {
        return EncodeEvent(e);
      },
      DecodeEvent);
  if (!status.ok()) return status;
  return std::shared_ptr<const serialization::SerializationRegistry>(
      std::move(registry));
}

}  // namespace

void Countdown::CountDown() {
  base::MutexLock lock(&mu_);
  if (--left_ == 0) done_.SignalAll();
}

void Countdown::Fail(const absl::Status& cause) {
  base::MutexLock lock(&mu_);
  // A copy of its own: absl::Status's shared representation is invisible
  // to ThreadSanitizer (Debian's Abseil is not instrumented).
  if (failure_.ok()) failure_ = absl::Status(cause.code(), cause.message());
  done_.SignalAll();
}

absl::Status Countdown::Wait() {
  base::MutexLock lock(&mu_);
  while (left_ > 0 && failure_.ok()) done_.Wait(&mu_);
  return failure_;
}

absl::Status Countdown::WaitFor(std::chrono::seconds timeout) {
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  base::MutexLock lock(&mu_);
  while (left_ > 0 && failure_.ok()) {
    if (done_.WaitWithDeadline(&mu_, deadline) && left_ > 0 && failure_.ok()) {
      return absl::DeadlineExceededError(
          absl::StrCat("not done within ", timeout.count(), " s"));
    }
  }
  return failure_;
}

std::string RocksDbJournalConfig(const std::string& dir, bool fsync) {
  return absl::StrCat("akka.persistence.journal.rocksdb { dir = \"", dir,
                      "\", fsync = ", fsync ? "on" : "off", " }\n");
}

absl::StatusOr<std::unique_ptr<BenchSystem>> BenchSystem::Start(
    const std::string& dir, bool fsync) {
  return StartWithConfig(RocksDbJournalConfig(dir, fsync));
}

absl::StatusOr<std::unique_ptr<BenchSystem>> BenchSystem::StartWithConfig(
    const std::string& persistence_config) {
  // The process-exit hook is off so that Ctrl-C ends the run at once (its
  // temporary store left behind): a benchmark's data is not worth a
  // coordinated shutdown.
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
      absl::StrCat("akka.loglevel = WARNING\n",
                   "akka.coordinated-shutdown.run-by-process-exit-hook = off\n",
                   persistence_config));
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create("bench", *config);
  if (!system.ok()) return system.status();
  std::unique_ptr<BenchSystem> bench(new BenchSystem(*std::move(system)));
  absl::StatusOr<std::shared_ptr<const serialization::SerializationRegistry>>
      registry = NewRegistry();
  if (!registry.ok()) return registry.status();
  persistence::PersistenceSetup setup;
  setup.serialization = *std::move(registry);
  absl::Status status =
      persistence::Persistence::Get(*bench->system_).Setup(std::move(setup));
  if (!status.ok()) return status;
  return bench;
}

BenchSystem::~BenchSystem() { system_->Terminate().wait(); }

}  // namespace cairn::bench
