#ifndef CAIRN_PERSISTENCE_QUERY_SOURCE_H_
#define CAIRN_PERSISTENCE_QUERY_SOURCE_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor.h"
#include "actor/actor_ref.h"
#include "persistence/storage/read_journal.h"

namespace cairn::persistence {

// The messages between a QuerySource and its consumer: demand as messages
// (Akka Streams' request(n), for actors).
//
// Consumer -> source: it may send `n` more elements.
struct QueryDemand {
  std::size_t n = 0;
};
// Source -> consumer: at most what was demanded and not yet sent, in the
// query's order.
struct QueryElements {
  std::vector<EventEnvelope> elements;
};
// Source -> consumer: the query delivered everything (a current query, or
// EventsByPersistenceId at its end); the source stops.
struct QueryCompleted {};
// Source -> consumer: the query failed (read_journal.h's errors); the
// source stops.
struct QueryFailed {
  absl::Status cause;
};

// An actor that runs a query (a QueryStream of EventEnvelope) for one
// consumer actor, reading only what the consumer asked for: it Pulls when
// the consumer's demand is above what it sent, at most that many (and at
// most `max_batch`) per Pull, so a slow consumer makes the query wait and
// nothing buffers without bound. One Pull at a time. Stopping the source
// destroys the stream (a waiting live Pull is cancelled).
//
//   ActorRef source = system.ActorOf(QuerySource::Props(
//       (*read_journal)->EventsByTag("movements", offset), Self()));
//   source.Tell(QueryDemand{100}, Self());
//
// The stream must come from a read journal that outlives the actor (the
// system's PersistenceQuery does).
class QuerySource final : public actor::Actor {
 public:
  static actor::Props Props(std::unique_ptr<QueryStream<EventEnvelope>> stream,
                            actor::ActorRef consumer,
                            std::size_t max_batch = 256);

  QuerySource(std::shared_ptr<QueryStream<EventEnvelope>> stream,
              actor::ActorRef consumer, std::size_t max_batch);

  void PostStop() override;

 private:
  // A Pull's outcome, sent to Self by the plugin's thread.
  struct Pulled {
    absl::StatusOr<QueryStream<EventEnvelope>::Batch> batch;
  };

  void PullIfWanted();

  std::shared_ptr<QueryStream<EventEnvelope>> stream_;
  const actor::ActorRef consumer_;
  const std::size_t max_batch_;
  std::size_t demand_ = 0;  // asked for and not yet sent
  bool pulling_ = false;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_QUERY_SOURCE_H_
