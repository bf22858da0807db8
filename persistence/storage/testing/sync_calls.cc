#include "persistence/storage/testing/sync_calls.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace cairn::persistence::testing {
namespace {

absl::Status Late() {
  return absl::DeadlineExceededError("the plugin did not call back in time");
}

absl::Status WaitDone(
    absl::AnyInvocable<void(absl::AnyInvocable<void(absl::Status) &&>)> call) {
  auto slot = std::make_shared<Slot<absl::Status>>();
  call([slot](absl::Status status) { slot->Set(std::move(status)); });
  std::optional<absl::Status> status = slot->Wait();
  return status.has_value() ? *std::move(status) : Late();
}

}  // namespace

WriteOutcome WriteMessages(Journal& journal, std::vector<AtomicWrite> writes) {
  auto slot = std::make_shared<Slot<WriteOutcome>>();
  journal.AsyncWriteMessages(
      std::move(writes),
      [slot](absl::Status batch, std::vector<absl::Status> per_write) {
        slot->Set({std::move(batch), std::move(per_write),
                   std::this_thread::get_id()});
      });
  std::optional<WriteOutcome> outcome = slot->Wait();
  return outcome.has_value() ? *std::move(outcome)
                             : WriteOutcome{Late(), {}, {}};
}

ReplayOutcome ReplayMessages(Journal& journal,
                             const std::string& persistence_id, int64_t from,
                             int64_t to, int64_t max) {
  // Events are collected on the plugin thread and handed over with `done`,
  // which the contract orders after every on_event.
  auto events = std::make_shared<std::vector<PersistentRepr>>();
  auto slot = std::make_shared<Slot<ReplayOutcome>>();
  journal.AsyncReplayMessages(
      persistence_id, from, to, max,
      [events](const PersistentRepr& event) { events->push_back(event); },
      [events, slot](absl::Status status) {
        slot->Set({std::move(*events), std::move(status),
                   std::this_thread::get_id()});
      });
  std::optional<ReplayOutcome> outcome = slot->Wait();
  return outcome.has_value() ? *std::move(outcome)
                             : ReplayOutcome{{}, Late(), {}};
}

ReplayPageOutcome ReplayPageOf(Journal& journal,
                               const std::string& persistence_id, int64_t from,
                               int64_t to, int64_t max) {
  struct Answer {
    absl::Status status;
    ReplayPage page;
  };
  auto slot = std::make_shared<Slot<Answer>>();
  journal.AsyncReplayPage(persistence_id, from, to, max,
                          [slot](absl::Status status, ReplayPage page) {
                            slot->Set({std::move(status), std::move(page)});
                          });
  std::optional<Answer> answer = slot->Wait();
  if (!answer.has_value()) return {{}, Late(), absl::OkStatus()};
  ReplayPageOutcome outcome;
  outcome.status = std::move(answer->status);
  outcome.read = answer->page.ForEach(
      persistence_id,
      [&](const serialization::Payload& payload, int64_t sequence_nr) {
        PersistentRepr& event = outcome.events.emplace_back();
        event.persistence_id = persistence_id;
        event.sequence_nr = sequence_nr;
        event.payload = payload;
        return true;
      });
  return outcome;
}

absl::StatusOr<int64_t> ReadHighestSequenceNr(
    Journal& journal, const std::string& persistence_id) {
  auto slot = std::make_shared<Slot<absl::StatusOr<int64_t>>>();
  journal.AsyncReadHighestSequenceNr(persistence_id, 0,
                                     [slot](absl::StatusOr<int64_t> highest) {
                                       slot->Set(std::move(highest));
                                     });
  std::optional<absl::StatusOr<int64_t>> highest = slot->Wait();
  return highest.has_value() ? *std::move(highest) : Late();
}

RecoveryStartOutcome StartRecovery(Journal& journal,
                                   RecoveryStartRequest request) {
  auto events = std::make_shared<std::vector<PersistentRepr>>();
  auto slot = std::make_shared<Slot<RecoveryStartOutcome>>();
  journal.AsyncStartRecovery(
      std::move(request),
      [events](const PersistentRepr& event) { events->push_back(event); },
      [events, slot](RecoveryStart start) {
        slot->Set({std::move(start), std::move(*events)});
      });
  std::optional<RecoveryStartOutcome> outcome = slot->Wait();
  if (outcome.has_value()) return *std::move(outcome);
  RecoveryStartOutcome late;
  late.start.snapshot = Late();
  late.start.highest = Late();
  return late;
}

absl::Status DeleteMessagesTo(Journal& journal,
                              const std::string& persistence_id, int64_t to,
                              std::optional<WriteFence> fence) {
  return WaitDone([&](auto done) {
    journal.AsyncDeleteMessagesTo(persistence_id, to, std::move(fence),
                                  std::move(done));
  });
}

absl::StatusOr<LoadSnapshotResult> LoadSnapshot(
    SnapshotStore& store, const std::string& persistence_id,
    SnapshotSelectionCriteria criteria, int64_t to_sequence_nr) {
  auto slot = std::make_shared<Slot<absl::StatusOr<LoadSnapshotResult>>>();
  store.AsyncLoad(persistence_id, criteria, to_sequence_nr,
                  [slot](absl::StatusOr<LoadSnapshotResult> result) {
                    slot->Set(std::move(result));
                  });
  std::optional<absl::StatusOr<LoadSnapshotResult>> result = slot->Wait();
  return result.has_value() ? *std::move(result) : Late();
}

absl::Status SaveSnapshot(SnapshotStore& store, SnapshotMetadata metadata,
                          serialization::Payload snapshot,
                          std::optional<WriteFence> fence) {
  return WaitDone([&](auto done) {
    store.AsyncSave(std::move(metadata), std::move(snapshot), std::move(fence),
                    std::move(done));
  });
}

absl::Status DeleteSnapshot(SnapshotStore& store, SnapshotMetadata metadata,
                            std::optional<WriteFence> fence) {
  return WaitDone([&](auto done) {
    store.AsyncDelete(std::move(metadata), std::move(fence), std::move(done));
  });
}

absl::Status DeleteSnapshots(SnapshotStore& store,
                             const std::string& persistence_id,
                             SnapshotSelectionCriteria criteria,
                             std::optional<WriteFence> fence) {
  return WaitDone([&](auto done) {
    store.AsyncDeleteByCriteria(persistence_id, criteria, std::move(fence),
                                std::move(done));
  });
}

absl::StatusOr<DurableStateObject> GetObject(
    DurableStateStore& store, const std::string& persistence_id) {
  auto slot = std::make_shared<Slot<absl::StatusOr<DurableStateObject>>>();
  store.AsyncGetObject(persistence_id,
                       [slot](absl::StatusOr<DurableStateObject> result) {
                         slot->Set(std::move(result));
                       });
  std::optional<absl::StatusOr<DurableStateObject>> result = slot->Wait();
  return result.has_value() ? *std::move(result) : Late();
}

absl::Status UpsertObject(DurableStateStore& store,
                          const std::string& persistence_id, int64_t revision,
                          serialization::Payload value, std::string tag,
                          std::optional<WriteFence> fence) {
  return WaitDone([&](auto done) {
    store.AsyncUpsertObject(persistence_id, revision, std::move(value),
                            std::move(tag), std::move(fence), std::move(done));
  });
}

absl::Status DeleteObject(DurableStateStore& store,
                          const std::string& persistence_id, int64_t revision,
                          std::optional<WriteFence> fence) {
  return WaitDone([&](auto done) {
    store.AsyncDeleteObject(persistence_id, revision, std::move(fence),
                            std::move(done));
  });
}

absl::StatusOr<std::vector<DurableStateChange>> CurrentChanges(
    DurableStateStore& store, const std::string& tag, int64_t after_offset,
    int64_t max) {
  auto slot =
      std::make_shared<Slot<absl::StatusOr<std::vector<DurableStateChange>>>>();
  store.AsyncCurrentChanges(
      tag, after_offset, max,
      [slot](absl::StatusOr<std::vector<DurableStateChange>> changes) {
        slot->Set(std::move(changes));
      });
  std::optional<absl::StatusOr<std::vector<DurableStateChange>>> result =
      slot->Wait();
  return result.has_value() ? *std::move(result) : Late();
}

PersistentRepr Event(const std::string& persistence_id, int64_t sequence_nr,
                     serialization::Payload payload) {
  PersistentRepr event;
  event.persistence_id = persistence_id;
  event.sequence_nr = sequence_nr;
  event.payload = std::move(payload);
  event.writer_uuid = "writer-1";
  event.timestamp = 1000 * sequence_nr;
  return event;
}

AtomicWrite Single(const std::string& persistence_id, int64_t sequence_nr,
                   serialization::Payload payload) {
  AtomicWrite write;
  write.events.push_back(
      Event(persistence_id, sequence_nr, std::move(payload)));
  return write;
}

std::vector<std::string> Texts(const std::vector<PersistentRepr>& events) {
  std::vector<std::string> texts;
  for (const PersistentRepr& event : events) {
    const std::string* text = event.payload.As<std::string>();
    texts.push_back(text == nullptr ? std::string() : *text);
  }
  return texts;
}

std::vector<int64_t> SequenceNrs(const std::vector<PersistentRepr>& events) {
  std::vector<int64_t> numbers;
  for (const PersistentRepr& event : events) {
    numbers.push_back(event.sequence_nr);
  }
  return numbers;
}

}  // namespace cairn::persistence::testing
