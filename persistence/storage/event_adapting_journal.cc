#include "persistence/storage/event_adapting_journal.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "base/mutex.h"
#include "base/status_copy.h"
#include "base/string_view.h"
#include "persistence/storage/internal/write_with_rejections.h"
#include "persistence/storage/tagged.h"

namespace cairn::persistence {
namespace {

absl::Status AdapterError(std::string_view persistence_id, int64_t sequence_nr,
                          std::string_view what, const absl::Status& cause) {
  return absl::Status(
      cause.code(),
      base::StrCat("persistence id '", persistence_id, "', sequence nr ",
                   sequence_nr, ": event adapter ", what, ": ",
                   cause.message()));
}

// A FromJournal failure, for a replay and a query alike.
absl::Status FromJournalError(std::string_view persistence_id,
                              int64_t sequence_nr,
                              const serialization::Payload& event,
                              std::string_view adapter_manifest,
                              const absl::Status& cause) {
  return AdapterError(
      persistence_id, sequence_nr,
      base::StrCat("FromJournal of ", event.TypeName(), " (adapter manifest '",
                   adapter_manifest, "')"),
      cause);
}

// Adapts the events of one AtomicWrite in place; the first failure, if
// any (then the write is rejected).
absl::Status AdaptWrite(const EventAdapters& adapters, AtomicWrite& write) {
  for (PersistentRepr& event : write.events) {
    UnwrapTagged(event);
    const EventAdapter* adapter = adapters.For(event.payload.type());
    if (adapter == nullptr) continue;
    absl::StatusOr<serialization::Payload> stored =
        adapter->ToJournal(event.payload);
    if (!stored.ok()) {
      return AdapterError(
          event.persistence_id, event.sequence_nr,
          base::StrCat("ToJournal of ", event.payload.TypeName()),
          stored.status());
    }
    event.adapter_manifest = adapter->Manifest(event.payload);
    event.payload = *std::move(stored);
    UnwrapTagged(event);  // ToJournal may tag the event (Akka's Tagged)
  }
  return absl::OkStatus();
}

// The events FromJournal makes of `stored` (itself if its type has no
// adapter), appended to `out`.
absl::Status AdaptEnvelope(const EventAdapters& adapters, EventEnvelope stored,
                           std::deque<EventEnvelope>& out) {
  const EventAdapter* adapter = adapters.For(stored.event.type());
  if (adapter == nullptr) {
    out.push_back(std::move(stored));
    return absl::OkStatus();
  }
  absl::StatusOr<EventSeq> events =
      adapter->FromJournal(stored.event, stored.adapter_manifest);
  if (!events.ok()) {
    return FromJournalError(stored.persistence_id, stored.sequence_nr,
                            stored.event, stored.adapter_manifest,
                            events.status());
  }
  for (serialization::Payload& event : *events) {
    EventEnvelope adapted = stored;
    adapted.event = std::move(event);
    out.push_back(std::move(adapted));
  }
  return absl::OkStatus();
}

// A query's events through the adapters. What a stored event adds beyond
// `max` waits in `pending` for the next Pull; a stored batch that adapts to
// nothing is followed by the next one, so a batch is never empty unless
// complete.
class AdaptingStream final : public QueryStream<EventEnvelope> {
 public:
  AdaptingStream(std::unique_ptr<QueryStream<EventEnvelope>> target,
                 std::shared_ptr<const EventAdapters> adapters)
      : state_(std::make_shared<State>()) {
    state_->target = std::move(target);
    state_->adapters = std::move(adapters);
  }

  void Pull(std::size_t max, PullCallback done) override {
    Continue(state_, std::max<std::size_t>(max, 1), std::move(done));
  }

 private:
  // Shared with the Pull in flight, which may outlive the stream.
  struct State {
    std::unique_ptr<QueryStream<EventEnvelope>> target;
    std::shared_ptr<const EventAdapters> adapters;
    std::deque<EventEnvelope> pending;
    bool target_complete = false;
  };

  static void Continue(std::shared_ptr<State> state, std::size_t max,
                       PullCallback done) {
    if (!state->pending.empty() || state->target_complete) {
      Batch batch;
      while (!state->pending.empty() && batch.elements.size() < max) {
        batch.elements.push_back(std::move(state->pending.front()));
        state->pending.pop_front();
      }
      batch.complete = state->target_complete && state->pending.empty();
      std::move(done)(std::move(batch));
      return;
    }
    QueryStream<EventEnvelope>& target = *state->target;
    target.Pull(max, [state = std::move(state), max, done = std::move(done)](
                         absl::StatusOr<Batch> stored) mutable {
      if (!stored.ok()) {
        std::move(done)(base::OwnCopy(stored.status()));
        return;
      }
      for (EventEnvelope& e : stored->elements) {
        absl::Status adapted =
            AdaptEnvelope(*state->adapters, std::move(e), state->pending);
        if (!adapted.ok()) {
          std::move(done)(std::move(adapted));
          return;
        }
      }
      state->target_complete = stored->complete;
      Continue(std::move(state), max, std::move(done));
    });
  }

  std::shared_ptr<State> state_;
};

class AdaptingReadJournal final : public ReadJournal {
 public:
  AdaptingReadJournal(std::unique_ptr<ReadJournal> target,
                      std::shared_ptr<const EventAdapters> adapters)
      : target_(std::move(target)), adapters_(std::move(adapters)) {}

  std::unique_ptr<QueryStream<std::string>> CurrentPersistenceIds() override {
    return target_->CurrentPersistenceIds();
  }
  std::unique_ptr<QueryStream<std::string>> PersistenceIds() override {
    return target_->PersistenceIds();
  }
  std::unique_ptr<QueryStream<EventEnvelope>> CurrentEventsByPersistenceId(
      std::string persistence_id, int64_t from_sequence_nr,
      int64_t to_sequence_nr) override {
    return std::make_unique<AdaptingStream>(
        target_->CurrentEventsByPersistenceId(std::move(persistence_id),
                                              from_sequence_nr, to_sequence_nr),
        adapters_);
  }
  std::unique_ptr<QueryStream<EventEnvelope>> CurrentEventsByTag(
      std::string tag, int64_t offset) override {
    return std::make_unique<AdaptingStream>(
        target_->CurrentEventsByTag(std::move(tag), offset), adapters_);
  }
  std::unique_ptr<QueryStream<EventEnvelope>> EventsByPersistenceId(
      std::string persistence_id, int64_t from_sequence_nr,
      int64_t to_sequence_nr) override {
    return std::make_unique<AdaptingStream>(
        target_->EventsByPersistenceId(std::move(persistence_id),
                                       from_sequence_nr, to_sequence_nr),
        adapters_);
  }
  std::unique_ptr<QueryStream<EventEnvelope>> EventsByTag(
      std::string tag, int64_t offset) override {
    return std::make_unique<AdaptingStream>(
        target_->EventsByTag(std::move(tag), offset), adapters_);
  }

 private:
  std::unique_ptr<ReadJournal> target_;
  std::shared_ptr<const EventAdapters> adapters_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ReadJournal>>
EventAdaptingJournal::NewReadJournal() {
  absl::StatusOr<std::unique_ptr<ReadJournal>> target =
      JournalWrapper::NewReadJournal();
  if (!target.ok()) return target.status();
  return std::unique_ptr<ReadJournal>(
      std::make_unique<AdaptingReadJournal>(*std::move(target), adapters_));
}

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
  storage_internal::WriteWithRejections(target(), std::move(writes),
                                        std::move(rejections), std::move(done));
}

// One replay through the adapters, which may read the target more than
// once. The callbacks of one target read run on one plugin thread and its
// `done` after them, and the next read is submitted from that `done`, so
// the state needs no lock.
struct EventAdaptingJournal::Replay {
  std::string persistence_id;
  int64_t to_sequence_nr = 0;
  int64_t max = 0;  // events to deliver, at least (whole stored events)
  Journal::ReplayCallback on_event;
  absl::Status failure;  // the first FromJournal failure
  int64_t delivered = 0;
  int64_t asked = 0;      // stored events the current target read asked for
  int64_t read = 0;       // and read
  int64_t last_read = 0;  // the sequence number of the last stored event read

  // The target's read filled its request, yet the adapters made fewer
  // events than the replay wants (they dropped some): the replay reads on
  // after the last stored event. Without that a caller that pages (a
  // recovery) would take the short page for the stream's end.
  bool ReadsOn() const {
    return failure.ok() && read == asked && delivered < max &&
           last_read < to_sequence_nr;
  }

  // The target's `on_event` for `state`: passes each stored event through
  // `adapters` to `state->on_event`; the first FromJournal failure goes to
  // `state->failure`, and no event after it is delivered.
  static ReplayCallback Adapting(std::shared_ptr<Replay> state,
                                 std::shared_ptr<const EventAdapters> adapters);
};

Journal::ReplayCallback EventAdaptingJournal::Replay::Adapting(
    std::shared_ptr<Replay> state,
    std::shared_ptr<const EventAdapters> adapters) {
  return [state = std::move(state),
          adapters = std::move(adapters)](const PersistentRepr& event) {
    // What a read brings past a full replay is left for the next page,
    // which starts after the last event delivered.
    if (!state->failure.ok() || state->delivered >= state->max) return;
    ++state->read;
    state->last_read = event.sequence_nr;
    const EventAdapter* adapter = adapters->For(event.payload.type());
    if (adapter == nullptr) {
      ++state->delivered;
      state->on_event(event);
      return;
    }
    absl::StatusOr<EventSeq> events =
        adapter->FromJournal(event.payload, event.adapter_manifest);
    if (!events.ok()) {
      state->failure = FromJournalError(event.persistence_id, event.sequence_nr,
                                        event.payload, event.adapter_manifest,
                                        events.status());
      return;
    }
    PersistentRepr adapted = event;
    for (serialization::Payload& payload : *events) {
      adapted.payload = std::move(payload);
      ++state->delivered;
      state->on_event(adapted);
    }
  };
}

EventAdaptingJournal::~EventAdaptingJournal() {
  {
    base::MutexLock lock(&mu_);
    closing_ = true;
  }
  // The callbacks the target's destructor runs use mu_.
  DestroyTarget();
}

void EventAdaptingJournal::AsyncReplayMessages(std::string persistence_id,
                                               int64_t from_sequence_nr,
                                               int64_t to_sequence_nr,
                                               int64_t max,
                                               ReplayCallback on_event,
                                               DoneCallback done) {
  auto state = std::make_shared<Replay>();
  state->persistence_id = std::move(persistence_id);
  state->to_sequence_nr = to_sequence_nr;
  state->max = max;
  state->on_event = std::move(on_event);
  Read(std::move(state), from_sequence_nr, std::move(done));
}

void EventAdaptingJournal::Read(std::shared_ptr<Replay> state,
                                int64_t from_sequence_nr, DoneCallback done) {
  state->asked = state->max - state->delivered;
  state->read = 0;
  ReplayCallback on_event = Replay::Adapting(state, adapters_);
  target().AsyncReplayMessages(
      state->persistence_id, from_sequence_nr, state->to_sequence_nr,
      state->asked, std::move(on_event),
      [this, state, done = std::move(done)](absl::Status status) mutable {
        ReadDone(std::move(state), std::move(status), std::move(done));
      });
}

void EventAdaptingJournal::ReadDone(std::shared_ptr<Replay> state,
                                    absl::Status status, DoneCallback done) {
  if (!state->failure.ok()) status = std::move(state->failure);
  if (status.ok() && state->ReadsOn()) {
    base::MutexLock lock(&mu_);
    if (!closing_) {
      Read(state, state->last_read + 1, std::move(done));
      return;
    }
    status = absl::CancelledError(base::StrCat(
        "persistence id '", state->persistence_id,
        "': the journal closed during the replay, after sequence nr ",
        state->last_read));
  }
  std::move(done)(std::move(status));
}

void EventAdaptingJournal::AsyncStartRecovery(RecoveryStartRequest request,
                                              ReplayCallback on_event,
                                              RecoveryStartCallback done) {
  auto state = std::make_shared<Replay>();
  state->persistence_id = request.persistence_id;
  state->to_sequence_nr = request.to_sequence_nr;
  state->max = request.page_max;
  state->asked = request.page_max;
  state->on_event = std::move(on_event);
  target().AsyncStartRecovery(
      std::move(request), Replay::Adapting(state, adapters_),
      [this, state, done = std::move(done)](RecoveryStart start) mutable {
        if (!start.replay.has_value()) {
          std::move(done)(std::move(start));
          return;
        }
        // The page goes on as a replay's would.
        absl::Status page = std::move(*start.replay);
        ReadDone(std::move(state), std::move(page),
                 [start = std::move(start),
                  done = std::move(done)](absl::Status status) mutable {
                   start.replay = std::move(status);
                   std::move(done)(std::move(start));
                 });
      });
}

}  // namespace cairn::persistence
