#include "examples/bank/test_support.h"

#include <memory>

#include "actor/future.h"
#include "base/mutex.h"
#include "examples/bank/serialization.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/persistence.h"
#include "persistence/storage/journal.h"
#include "serialization/serialization.h"

namespace cairn::examples::bank::testing {
namespace {

constexpr char kJournalPluginId[] = "bank-test.journal";

constexpr char kInMemoryConfig[] = R"(
  akka.loglevel = ERROR
  akka.persistence.journal.plugin = "bank-test.journal"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

std::shared_ptr<const serialization::SerializationRegistry> Registry() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  absl::Status status = RegisterBankTypes(*registry);
  if (status.ok()) {
    status = registry->Register<Unreadable>(
        "test.Unreadable",
        [](const Unreadable&) -> absl::StatusOr<std::string> {
          return std::string("?");
        },
        [](std::string_view) -> absl::StatusOr<Unreadable> {
          return absl::DataLossError("an Unreadable cannot be read");
        });
  }
  if (!status.ok()) throw std::runtime_error(std::string(status.message()));
  return registry;
}

}  // namespace

void ReplayGate::Allow(int events) {
  {
    base::MutexLock lock(&mu_);
    allowed_ += events;
  }
  changed_.SignalAll();
}

void ReplayGate::AllowAll() {
  {
    base::MutexLock lock(&mu_);
    all_ = true;
  }
  changed_.SignalAll();
}

void ReplayGate::Pass() {
  base::MutexLock lock(&mu_);
  while (!all_ && allowed_ <= 0) changed_.Wait(&mu_);
  if (!all_) --allowed_;
}

GatedJournal::GatedJournal(std::unique_ptr<persistence::Journal> inner,
                           std::string persistence_id,
                           std::shared_ptr<ReplayGate> gate)
    : JournalWrapper(std::move(inner)),
      id_(std::move(persistence_id)),
      gate_(std::move(gate)) {}

void GatedJournal::AsyncReplayMessages(std::string persistence_id,
                                       int64_t from_sequence_nr,
                                       int64_t to_sequence_nr, int64_t max,
                                       ReplayCallback on_event,
                                       DoneCallback done) {
  if (persistence_id == id_) {
    on_event = [gate = gate_, on_event = std::move(on_event)](
                   const persistence::PersistentRepr& event) mutable {
      gate->Pass();
      on_event(event);
    };
  }
  JournalWrapper::AsyncReplayMessages(std::move(persistence_id),
                                      from_sequence_nr, to_sequence_nr, max,
                                      std::move(on_event), std::move(done));
}

BankTestKit::BankTestKit(WrapJournal wrap, std::string_view extra_config)
    : TestKit(std::string_view(std::string(kInMemoryConfig) +
                               std::string(extra_config))) {
  persistence::PersistenceSetup setup;
  setup.serialization = Registry();
  setup.register_plugins =
      [wrap = std::move(wrap)](persistence::PluginRegistry& plugins) {
        return plugins.RegisterJournal(
            kJournalPluginId,
            [wrap](const persistence::PluginContext& context)
                -> absl::StatusOr<std::unique_ptr<persistence::Journal>> {
              std::unique_ptr<persistence::Journal> journal =
                  persistence::NewInMemoryJournal(context.serialization);
              return wrap ? wrap(std::move(journal)) : std::move(journal);
            });
      };
  absl::Status status =
      persistence::Persistence::Get(Sys()).Setup(std::move(setup));
  if (!status.ok()) throw std::runtime_error(std::string(status.message()));
}

persistence::Journal& BankTestKit::Journal() {
  absl::StatusOr<persistence::Journal*> journal =
      persistence::Persistence::Get(Sys()).JournalFor("");
  if (!journal.ok())
    throw std::runtime_error(std::string(journal.status().message()));
  return **journal;
}

absl::Status BankTestKit::WriteEvents(
    const std::string& persistence_id,
    std::vector<std::pair<int64_t, serialization::Payload>> events) {
  persistence::Journal* journal = &Journal();
  for (auto& [sequence_nr, payload] : events) {
    persistence::PersistentRepr repr;
    repr.persistence_id = persistence_id;
    repr.sequence_nr = sequence_nr;
    repr.payload = std::move(payload);
    std::vector<persistence::AtomicWrite> writes(1);
    writes[0].events.push_back(std::move(repr));
    actor::Promise<absl::Status> written;
    journal->AsyncWriteMessages(
        std::move(writes),
        [written](absl::Status batch,
                  std::vector<absl::Status> per_write) mutable {
          written.TrySetValue(batch.ok() && !per_write.empty() ? per_write[0]
                                                               : batch);
        });
    actor::Future<absl::Status> result = written.GetFuture();
    if (!result.wait_for(kExpectTimeout)) {
      return absl::DeadlineExceededError("journal write timed out");
    }
    if (!result.get().ok()) return result.get();
  }
  return absl::OkStatus();
}

}  // namespace cairn::examples::bank::testing
