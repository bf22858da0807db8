#include "persistence/projection/internal/projection_runner.h"

#include <exception>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "base/status_copy.h"

namespace cairn::persistence::projection_internal {
namespace {

// The failure a runner throws; its supervisor restarts the runner.
class ProjectionFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A handler's outcome, its exceptions taken as failures.
template <typename F>
absl::Status Guarded(F&& process) {
  try {
    return process();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("the handler threw: ", e.what()));
  } catch (...) {
    return absl::InternalError("the handler threw a non-standard exception");
  }
}

}  // namespace

ProjectionRunner::ProjectionRunner(ProjectionSpec spec)
    : spec_(std::move(spec)) {
  Receive<Start>([this](const Start&) { Begin(); });
  Receive<Pulled>([this](const Pulled& p) {
    if (!p.batch.ok()) Fail(p.batch.status());
    Handle(*p.batch);
  });
  Receive<SaveTick>([this](const SaveTick&) {
    if (offset_ != saved_) SaveOffset();
  });
}

void ProjectionRunner::PreStart() {
  // Started by a message, not here: a failure of PreStart would stop the
  // runner for good instead of restarting it.
  Self().Tell(Start{}, Self());
}

void ProjectionRunner::Begin() {
  absl::StatusOr<ProjectionOffset> stored = spec_.store->ReadOffset(spec_.id);
  if (!stored.ok()) Fail(stored.status());
  offset_ = saved_ = resume_ = *stored;
  // A count means some envelopes of that offset were handled: read from
  // it again and pass over them (HandledBefore).
  const int64_t after =
      resume_.envelopes > 0 ? resume_.offset - 1 : resume_.offset;
  absl::StatusOr<std::unique_ptr<QueryStream<EventEnvelope>>> stream =
      spec_.source(Context().System(), after);
  if (!stream.ok()) Fail(stream.status());
  stream_ = *std::move(stream);
  if (spec_.at_least_once) {
    at_least_once_ = spec_.at_least_once();
  } else {
    exactly_once_ = spec_.exactly_once();
  }
  Pull();
}

void ProjectionRunner::Pull() {
  stream_->Pull(
      spec_.settings.batch_size,
      [self = Self()](absl::StatusOr<QueryStream<EventEnvelope>::Batch> batch) {
        if (!batch.ok()) batch = base::OwnCopy(batch.status());
        self.Tell(Pulled{std::move(batch)}, actor::ActorRef());
      });
}

void ProjectionRunner::Handle(const QueryStream<EventEnvelope>::Batch& batch) {
  if (at_least_once_) {
    HandleAtLeastOnce(batch.elements);
  } else {
    HandleExactlyOnce(batch.elements);
  }
  if (!batch.complete) {
    Pull();
    return;
  }
  if (offset_ != saved_) SaveOffset();
  Tell(ProjectionCompleted{spec_.id, offset_});
  Context().Stop(Self());
}

bool ProjectionRunner::HandledBefore(const EventEnvelope& e) {
  if (resume_.envelopes == 0 || e.offset != resume_.offset) {
    resume_ = ProjectionOffset{};
    return false;
  }
  --resume_.envelopes;
  return true;
}

void ProjectionRunner::Advance(const EventEnvelope& e) {
  if (e.offset == offset_.offset) {
    ++offset_.envelopes;
  } else {
    offset_ = ProjectionOffset{e.offset, 1};
  }
}

void ProjectionRunner::HandleAtLeastOnce(
    const std::vector<EventEnvelope>& envelopes) {
  for (const EventEnvelope& e : envelopes) {
    if (HandledBefore(e)) continue;
    absl::Status s = Guarded([&] { return at_least_once_->Process(e); });
    if (!s.ok()) Fail(s);
    Advance(e);
    if (++unsaved_ >= spec_.settings.save_offset_after_envelopes) {
      SaveOffset();
    } else if (unsaved_ == 1) {
      save_timer_ = Context().System().Scheduler().ScheduleTellOnce(
          spec_.settings.save_offset_after_duration, Self(), SaveTick{},
          Self());
    }
  }
}

void ProjectionRunner::HandleExactlyOnce(
    const std::vector<EventEnvelope>& envelopes) {
  ProjectionTransaction tx = spec_.store->Begin();
  bool handled = false;
  for (const EventEnvelope& e : envelopes) {
    if (HandledBefore(e)) continue;
    absl::Status s = Guarded([&] { return exactly_once_->Process(e, tx); });
    if (!s.ok()) Fail(s);  // the transaction is dropped
    Advance(e);
    handled = true;
  }
  if (!handled) return;
  if (absl::Status s =
          spec_.store->Commit(std::move(tx), spec_.id, saved_, offset_);
      !s.ok()) {
    Fail(s);
  }
  saved_ = offset_;
  Tell(ProjectionProgress{spec_.id, offset_});
}

void ProjectionRunner::SaveOffset() {
  save_timer_.Cancel();
  if (absl::Status s = spec_.store->SaveOffset(spec_.id, offset_); !s.ok()) {
    Fail(s);
  }
  saved_ = offset_;
  unsaved_ = 0;
  Tell(ProjectionProgress{spec_.id, offset_});
}

void ProjectionRunner::Fail(const absl::Status& cause) {
  const std::string message =
      absl::StrCat("projection '", spec_.id.name, "' (key '", spec_.id.key,
                   "') failed: ", cause.ToString());
  Tell(ProjectionFailed{spec_.id, message});
  throw ProjectionFailure(message);
}

void ProjectionRunner::PostStop() {
  save_timer_.Cancel();
  // At-least-once: what was handled before a stop or a failure is saved,
  // so a restart does not handle it again. (Exactly-once stores nothing
  // outside its transactions.)
  // (The handler exists once the start read the offset.)
  if (at_least_once_ && offset_ != saved_) {
    if (absl::Status s = spec_.store->SaveOffset(spec_.id, offset_); s.ok()) {
      Tell(ProjectionProgress{spec_.id, offset_});
    } else {
      Context()
          .System()
          .Log(Self().Path().ToString())
          .Warning(absl::StrCat(
              "projection '", spec_.id.name, "' (key '", spec_.id.key,
              "') could not save its offset when stopping (the envelopes "
              "since the last saved one will be handled again): ",
              s.message()));
    }
  }
  stream_.reset();
}

}  // namespace cairn::persistence::projection_internal
