#ifndef CAIRN_PERSISTENCE_PROJECTION_INTERNAL_PROJECTION_RUNNER_H_
#define CAIRN_PERSISTENCE_PROJECTION_INTERNAL_PROJECTION_RUNNER_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor.h"
#include "actor/scheduler.h"
#include "persistence/projection/projection.h"

namespace cairn::persistence::projection_internal {

// What a runner needs: one of the two handler factories is set.
struct ProjectionSpec {
  ProjectionId id;
  SourceProvider source;
  std::shared_ptr<ProjectionStore> store;
  Projection::HandlerFactory at_least_once;
  Projection::ExactlyOnceHandlerFactory exactly_once;
  ProjectionSettings settings;
  actor::ActorRef observer;
};

// The actor that runs a projection once, from its stored offset to its
// first failure (which it throws, for the BackoffSupervisor above it to
// restart it) or the end of a current source (it stops).
//
// Each Pull's batch is handled in order: at-least-once, envelope by
// envelope, saving the offset as the settings say and when the runner
// stops (also after a failure: what was handled before it is saved);
// exactly-once, one transaction per batch, committed with the offset of
// its last envelope.
class ProjectionRunner final : public actor::Actor {
 public:
  explicit ProjectionRunner(ProjectionSpec spec);
  void PreStart() override;
  void PostStop() override;

 private:
  struct Start {};
  struct Pulled {
    absl::StatusOr<QueryStream<EventEnvelope>::Batch> batch;
  };
  struct SaveTick {};

  void Begin();
  void Pull();
  void Handle(const QueryStream<EventEnvelope>::Batch& batch);
  // Whether `e` was handled before the restart (the first envelopes of a
  // split event whose offset was stored with a count).
  bool HandledBefore(const EventEnvelope& e);
  void Advance(const EventEnvelope& e);
  void HandleAtLeastOnce(const std::vector<EventEnvelope>& envelopes);
  void HandleExactlyOnce(const std::vector<EventEnvelope>& envelopes);
  void SaveOffset();
  // Tells the observer and throws: the supervisor restarts the runner.
  [[noreturn]] void Fail(const absl::Status& cause);
  template <typename T>
  void Tell(T message) {
    if (!spec_.observer.IsNobody()) spec_.observer.Tell(std::move(message));
  }

  const ProjectionSpec spec_;
  std::unique_ptr<ProjectionHandler> at_least_once_;
  std::unique_ptr<ExactlyOnceHandler> exactly_once_;
  std::shared_ptr<QueryStream<EventEnvelope>> stream_;
  ProjectionOffset offset_;  // of the last envelope handled
  ProjectionOffset saved_;   // stored
  ProjectionOffset resume_;  // stored at the start: handled before it
  int unsaved_ = 0;          // at-least-once: envelopes since saved_
  actor::Cancellable save_timer_;
};

}  // namespace cairn::persistence::projection_internal

#endif  // CAIRN_PERSISTENCE_PROJECTION_INTERNAL_PROJECTION_RUNNER_H_
