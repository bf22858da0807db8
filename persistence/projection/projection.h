#ifndef CAIRN_PERSISTENCE_PROJECTION_PROJECTION_H_
#define CAIRN_PERSISTENCE_PROJECTION_PROJECTION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "hocon/config.h"
#include "persistence/storage/projection_store.h"
#include "persistence/storage/read_journal.h"

namespace cairn::persistence {

// Where a projection reads its envelopes (Akka's SourceProvider): a query
// stream starting after `offset` (exclusive). Called on the projection's
// thread at each start and restart; an error fails that start (which is
// retried with back-off).
using SourceProvider =
    std::function<absl::StatusOr<std::unique_ptr<QueryStream<EventEnvelope>>>(
        actor::ActorSystem& system, int64_t offset)>;

// The sources of Akka's EventSourcedProvider, on the read journal of a
// journal plugin (empty: the default journal). The live ones never end;
// the current ones end the projection once they delivered what was stored
// at their first Pull (a catch-up run, as `bank report` does).
struct EventSourcedProvider {
  static SourceProvider EventsByTag(std::string journal_plugin_id,
                                    std::string tag);
  static SourceProvider CurrentEventsByTag(std::string journal_plugin_id,
                                           std::string tag);
  // The offset is the sequence number.
  static SourceProvider EventsByPersistenceId(std::string journal_plugin_id,
                                              std::string persistence_id);
  static SourceProvider CurrentEventsByPersistenceId(
      std::string journal_plugin_id, std::string persistence_id);
};

// An at-least-once handler: its effects go anywhere (another system, a
// file); the projection stores the offset after them, so after a crash
// the envelopes since the last saved offset are handled again.
//
// Process runs on the projection's actor, one envelope at a time, in the
// query's order. Failure (a non-OK status, or an exception): the
// projection stops, saves the offset of what was handled before, and
// starts again after the back-off, from that offset.
class ProjectionHandler {
 public:
  virtual ~ProjectionHandler() = default;
  virtual absl::Status Process(const EventEnvelope& envelope) = 0;
};

// An exactly-once handler: it writes the read model through `tx`, which
// the projection commits together with the offset in one atomic write to
// the ProjectionStore, so each envelope's writes are stored exactly once.
// Effects outside `tx` are not covered. Failure as ProjectionHandler; the
// writes of the failed transaction are dropped.
class ExactlyOnceHandler {
 public:
  virtual ~ExactlyOnceHandler() = default;
  virtual absl::Status Process(const EventEnvelope& envelope,
                               ProjectionTransaction& tx) = 0;
};

// How a projection runs (Akka's akka.projection settings; FromConfig reads
// them from the system's config, where persistence/projection/
// reference.conf gives these defaults).
struct ProjectionSettings {
  // Restart with back-off after a failure (Akka's restart-backoff).
  absl::Duration min_backoff = absl::Seconds(3);
  absl::Duration max_backoff = absl::Seconds(30);
  double random_factor = 0.2;
  // Restarts before the projection gives up and stops; -1: never.
  int max_restarts = -1;
  // At-least-once: save the offset after this many envelopes, or this long
  // after the first envelope not yet saved, whichever comes first.
  int save_offset_after_envelopes = 100;
  absl::Duration save_offset_after_duration = absl::Milliseconds(500);
  // Envelopes read per Pull, and at most per exactly-once transaction.
  std::size_t batch_size = 256;

  // akka.projection.{restart-backoff.{min-backoff, max-backoff,
  // random-factor, max-restarts}, at-least-once.{save-offset-after-
  // envelopes, save-offset-after-duration}, batch-size}. InvalidArgument
  // naming the key that is missing, of the wrong type or out of range.
  static absl::StatusOr<ProjectionSettings> FromConfig(
      const hocon::Config& config);
  absl::Status Validate() const;
};

// What a projection tells the actor given to WithStatusObserver.
struct ProjectionProgress {  // an offset was stored
  ProjectionId id;
  ProjectionOffset offset;
};
struct ProjectionFailed {  // a start or an envelope failed; restart follows
  ProjectionId id;
  std::string cause;
};
struct ProjectionCompleted {  // a current source ended; the projection stops
  ProjectionId id;
  ProjectionOffset offset;
};

// A projection (Akka Projections): runs a handler over the envelopes of a
// source from the offset stored for its id, stores the offsets as it
// goes, and restarts with back-off on failure, from the stored offset.
//
//   auto store = RocksDbProjectionStore::Open(dir);
//   system.ActorOf(
//       Projection::ExactlyOnce({"totals", "movements"},
//                               EventSourcedProvider::EventsByTag("",
//                                   "movements"),
//                               *store, [] { return std::make_unique<Totals>();
//                               })
//           .Props(),
//       "totals-projection");
//
// The actor it gives is a BackoffSupervisor over the projection's runner.
// Stopping it stops the projection after storing the offset of what was
// handled (at-least-once); starting one again with the same id resumes
// there. It stops by itself when a current source completes, or after
// max_restarts.
//
// Guarantees, with a source whose order is fixed (by tag, by persistence
// id): at-least-once, every envelope is handled at least once, and those
// since the last stored offset again after a crash; exactly-once, the
// writes through the transaction of every envelope are committed once.
class Projection {
 public:
  using HandlerFactory = std::function<std::unique_ptr<ProjectionHandler>()>;
  using ExactlyOnceHandlerFactory =
      std::function<std::unique_ptr<ExactlyOnceHandler>()>;

  // The handler is made anew at each start and restart.
  static Projection AtLeastOnce(ProjectionId id, SourceProvider source,
                                std::shared_ptr<ProjectionStore> offsets,
                                HandlerFactory handler);
  static Projection ExactlyOnce(ProjectionId id, SourceProvider source,
                                std::shared_ptr<ProjectionStore> store,
                                ExactlyOnceHandlerFactory handler);

  Projection WithSettings(ProjectionSettings settings) const;
  // `observer` gets ProjectionProgress, ProjectionFailed and
  // ProjectionCompleted.
  Projection WithStatusObserver(actor::ActorRef observer) const;

  const ProjectionId& id() const { return id_; }
  const ProjectionSettings& settings() const { return settings_; }

  // The Props of the projection's actor. Throws std::invalid_argument
  // naming the setting that is out of range.
  actor::Props Props() const;

 private:
  Projection() = default;

  ProjectionId id_;
  SourceProvider source_;
  std::shared_ptr<ProjectionStore> store_;
  HandlerFactory at_least_once_;
  ExactlyOnceHandlerFactory exactly_once_;
  ProjectionSettings settings_;
  actor::ActorRef observer_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_PROJECTION_PROJECTION_H_
