#include "examples/store_failure/counter.h"

#include <utility>

#include "absl/time/clock.h"
#include "examples/store_failure/protocol.h"
#include "examples/store_failure/serialization.h"
#include "persistence/messages.h"

namespace cairn::examples::store_failure {

Counter::Counter(std::string id, actor::ActorRef listener)
    : id_(std::move(id)), listener_(std::move(listener)) {
  Recover<Incremented>([this](const Incremented&) { ++count_; });
  Recover<persistence::RecoveryCompleted>(
      [this](const persistence::RecoveryCompleted&) {
        listener_.Tell(CounterRecovered{id_, count_, absl::Now()});
      });

  Command<Increment>([this](const Increment&) {
    Persist(Incremented{}, [this](const Incremented&) {
      ++count_;
      Sender().Tell(Acked{id_, count_, LastSequenceNr()});
    });
  });
}

void Counter::PreStart() { listener_.Tell(CounterStarted{id_, absl::Now()}); }

void Counter::PostStop() { listener_.Tell(CounterStopped{id_, absl::Now()}); }

void Counter::OnPersistFailure(const absl::Status& cause,
                               const serialization::Payload&,
                               int64_t sequence_nr) {
  listener_.Tell(CounterPersistFailed{id_, sequence_nr, cause, absl::Now()});
}

void Counter::OnRecoveryFailure(const absl::Status& cause,
                                const serialization::Payload*) {
  listener_.Tell(CounterRecoveryFailed{id_, cause, absl::Now()});
}

}  // namespace cairn::examples::store_failure
