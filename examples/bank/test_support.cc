#include "examples/bank/test_support.h"

#include <memory>

#include "actor/future.h"
#include "examples/bank/serialization.h"
#include "persistence/journal.h"
#include "persistence/persistence.h"
#include "persistence/serialization.h"

namespace cairn::examples::bank::testing {
namespace {

constexpr char kInMemoryConfig[] = R"(
  akka.loglevel = ERROR
  akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
  akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
)";

std::shared_ptr<const persistence::SerializationRegistry> Registry() {
  auto registry = std::make_shared<persistence::SerializationRegistry>();
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

BankTestKit::BankTestKit() : TestKit(std::string_view(kInMemoryConfig)) {
  persistence::PersistenceSetup setup;
  setup.serialization = Registry();
  absl::Status status =
      persistence::Persistence::Get(Sys()).Setup(std::move(setup));
  if (!status.ok()) throw std::runtime_error(std::string(status.message()));
}

absl::Status BankTestKit::WriteEvents(
    const std::string& persistence_id,
    std::vector<std::pair<int64_t, persistence::Payload>> events) {
  absl::StatusOr<persistence::Journal*> journal =
      persistence::Persistence::Get(Sys()).JournalFor("");
  if (!journal.ok()) return journal.status();
  for (auto& [sequence_nr, payload] : events) {
    persistence::PersistentRepr repr;
    repr.persistence_id = persistence_id;
    repr.sequence_nr = sequence_nr;
    repr.payload = std::move(payload);
    std::vector<persistence::AtomicWrite> writes(1);
    writes[0].events.push_back(std::move(repr));
    actor::Promise<absl::Status> written;
    (*journal)->AsyncWriteMessages(
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
