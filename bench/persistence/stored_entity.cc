#include "bench/persistence/stored_entity.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "actor/props.h"
#include "bench/persistence/persistence_benchmark_support.h"

namespace cairn::bench {

StoredEntity::StoredEntity(std::string id, Countdown* done, int fill_events)
    : id_(std::move(id)), done_(done), fill_events_(fill_events) {
  Recover<Event>([this](const Event&) { ++recovered_; });
  Command<Add>([this](const Add&) {
    Persist(Event{recovered_}, [this](const Event&) { done_->CountDown(); });
  });
  Command<Ping>([this](const Ping&) { done_->CountDown(); });
  Command<Fill>([this](const Fill&) {
    std::vector<Event> events(fill_events_, Event{1});
    PersistAll(std::move(events), [this](const Event&) {
      if (++written_ == fill_events_) {
        done_->CountDown();
        Context().Stop(Self());
      }
    });
  });
}

void StoredEntity::OnRecoveryFailure(const absl::Status& cause,
                                     const serialization::Payload*) {
  done_->Fail(cause);
}

void StoredEntity::OnPersistFailure(const absl::Status& cause,
                                    const serialization::Payload&, int64_t) {
  done_->Fail(cause);
}

absl::Status FillStoredEntities(const std::string& dir, int64_t count,
                                int events) {
  absl::StatusOr<std::unique_ptr<BenchSystem>> bench =
      BenchSystem::Start(dir, /*fsync=*/false);
  if (!bench.ok()) return bench.status();
  constexpr int64_t kChunk = 10'000;
  for (int64_t from = 0; from < count; from += kChunk) {
    const int64_t to = std::min(count, from + kChunk);
    Countdown done(to - from);
    for (int64_t i = from; i < to; ++i) {
      (*bench)
          ->system()
          .ActorOf(actor::Props::Create<StoredEntity>(BenchPersistenceId(i),
                                                      &done, events))
          .Tell(Fill{});
    }
    if (absl::Status s = done.Wait(); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace cairn::bench
