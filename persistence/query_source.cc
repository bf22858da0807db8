#include "persistence/query_source.h"

#include <algorithm>
#include <utility>

#include "actor/props.h"
#include "base/status_copy.h"

namespace cairn::persistence {

actor::Props QuerySource::Props(
    std::unique_ptr<QueryStream<EventEnvelope>> stream,
    actor::ActorRef consumer, std::size_t max_batch) {
  // Props are copyable: the stream is shared until the actor takes it.
  std::shared_ptr<QueryStream<EventEnvelope>> shared = std::move(stream);
  return actor::Props::Create<QuerySource>(std::move(shared),
                                           std::move(consumer), max_batch);
}

QuerySource::QuerySource(std::shared_ptr<QueryStream<EventEnvelope>> stream,
                         actor::ActorRef consumer, std::size_t max_batch)
    : stream_(std::move(stream)),
      consumer_(std::move(consumer)),
      max_batch_(std::max<std::size_t>(max_batch, 1)) {
  Receive<QueryDemand>([this](const QueryDemand& d) {
    demand_ += d.n;
    PullIfWanted();
  });
  Receive<Pulled>([this](const Pulled& p) {
    pulling_ = false;
    if (!p.batch.ok()) {
      consumer_.Tell(QueryFailed{base::OwnCopy(p.batch.status())}, Self());
      Context().Stop(Self());
      return;
    }
    if (!p.batch->elements.empty()) {
      demand_ -= std::min(demand_, p.batch->elements.size());
      consumer_.Tell(QueryElements{p.batch->elements}, Self());
    }
    if (p.batch->complete) {
      consumer_.Tell(QueryCompleted{}, Self());
      Context().Stop(Self());
      return;
    }
    PullIfWanted();
  });
}

void QuerySource::PullIfWanted() {
  if (pulling_ || demand_ == 0 || stream_ == nullptr) return;
  pulling_ = true;
  stream_->Pull(
      std::min(demand_, max_batch_),
      [self = Self()](absl::StatusOr<QueryStream<EventEnvelope>::Batch> batch) {
        if (!batch.ok()) {
          batch = base::OwnCopy(batch.status());
        }
        self.Tell(Pulled{std::move(batch)}, actor::ActorRef());
      });
}

void QuerySource::PostStop() { stream_.reset(); }

}  // namespace cairn::persistence
