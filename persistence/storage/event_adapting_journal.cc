#include "persistence/storage/event_adapting_journal.h"

#include <utility>

#include "base/string_view.h"
#include "persistence/storage/internal/write_with_rejections.h"

namespace cairn::persistence {
namespace {

absl::Status AdapterError(const PersistentRepr& event, std::string_view what,
                          const absl::Status& cause) {
  return absl::Status(
      cause.code(),
      base::StrCat("persistence id '", event.persistence_id, "', sequence nr ",
                   event.sequence_nr, ": event adapter ", what, ": ",
                   cause.message()));
}

// Adapts the events of one AtomicWrite in place; the first failure, if
// any (then the write is rejected).
absl::Status AdaptWrite(const EventAdapters& adapters, AtomicWrite& write) {
  for (PersistentRepr& event : write.events) {
    const EventAdapter* adapter = adapters.For(event.payload.type());
    if (adapter == nullptr) continue;
    absl::StatusOr<Payload> stored = adapter->ToJournal(event.payload);
    if (!stored.ok()) {
      return AdapterError(
          event, base::StrCat("ToJournal of ", event.payload.TypeName()),
          stored.status());
    }
    event.adapter_manifest = adapter->Manifest(event.payload);
    event.payload = *std::move(stored);
  }
  return absl::OkStatus();
}

// What the two callbacks of one replay share. on_event runs on one plugin
// thread for the whole replay and `done` after it (journal.h), so no lock.
struct ReplayState {
  Journal::ReplayCallback on_event;
  absl::Status failure;
};

}  // namespace

EventAdaptingJournal::EventAdaptingJournal(
    std::unique_ptr<Journal> target,
    std::shared_ptr<const EventAdapters> adapters)
    : JournalWrapper(std::move(target)), adapters_(std::move(adapters)) {}

void EventAdaptingJournal::AsyncWriteMessages(std::vector<AtomicWrite> writes,
                                              WriteCallback done) {
  std::vector<absl::Status> rejections(writes.size());
  bool any_rejected = false;
  for (size_t i = 0; i < writes.size(); ++i) {
    rejections[i] = AdaptWrite(*adapters_, writes[i]);
    any_rejected = any_rejected || !rejections[i].ok();
  }
  if (!any_rejected) {
    target().AsyncWriteMessages(std::move(writes), std::move(done));
    return;
  }
  internal::WriteWithRejections(target(), std::move(writes),
                                std::move(rejections), std::move(done));
}

void EventAdaptingJournal::AsyncReplayMessages(std::string persistence_id,
                                               int64_t from_sequence_nr,
                                               int64_t to_sequence_nr,
                                               int64_t max,
                                               ReplayCallback on_event,
                                               DoneCallback done) {
  auto state = std::make_shared<ReplayState>();
  state->on_event = std::move(on_event);
  target().AsyncReplayMessages(
      std::move(persistence_id), from_sequence_nr, to_sequence_nr, max,
      [state, adapters = adapters_](const PersistentRepr& event) {
        if (!state->failure.ok()) return;
        const EventAdapter* adapter = adapters->For(event.payload.type());
        if (adapter == nullptr) {
          state->on_event(event);
          return;
        }
        absl::StatusOr<EventSeq> events =
            adapter->FromJournal(event.payload, event.adapter_manifest);
        if (!events.ok()) {
          state->failure = AdapterError(
              event,
              base::StrCat("FromJournal of ", event.payload.TypeName(),
                           " (adapter manifest '", event.adapter_manifest,
                           "')"),
              events.status());
          return;
        }
        PersistentRepr adapted = event;
        for (Payload& payload : *events) {
          adapted.payload = std::move(payload);
          state->on_event(adapted);
        }
      },
      [state, done = std::move(done)](absl::Status status) mutable {
        if (!state->failure.ok()) status = std::move(state->failure);
        std::move(done)(std::move(status));
      });
}

}  // namespace cairn::persistence
