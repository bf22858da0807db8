#include "persistence/projection/projection.h"

#include <limits>
#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backoff/backoff_options.h"
#include "backoff/backoff_supervisor.h"
#include "persistence/persistence_query.h"
#include "persistence/projection/internal/projection_runner.h"

namespace cairn::persistence {
namespace {

using Stream = std::unique_ptr<QueryStream<EventEnvelope>>;

// A source on the read journal of `plugin` made by `query`.
template <typename Query>
SourceProvider OnReadJournal(std::string plugin, Query query) {
  return [plugin = std::move(plugin), query = std::move(query)](
             actor::ActorSystem& system,
             int64_t offset) -> absl::StatusOr<Stream> {
    absl::StatusOr<ReadJournal*> journal =
        PersistenceQuery::Get(system).ReadJournalFor(plugin);
    if (!journal.ok()) return journal.status();
    return query(**journal, offset);
  };
}

constexpr char kBlock[] = "akka.projection.";

}  // namespace

SourceProvider EventSourcedProvider::EventsByTag(std::string journal_plugin_id,
                                                 std::string tag) {
  return OnReadJournal(std::move(journal_plugin_id),
                       [tag = std::move(tag)](ReadJournal& j, int64_t offset) {
                         return j.EventsByTag(tag, offset);
                       });
}

SourceProvider EventSourcedProvider::CurrentEventsByTag(
    std::string journal_plugin_id, std::string tag) {
  return OnReadJournal(std::move(journal_plugin_id),
                       [tag = std::move(tag)](ReadJournal& j, int64_t offset) {
                         return j.CurrentEventsByTag(tag, offset);
                       });
}

SourceProvider EventSourcedProvider::EventsByPersistenceId(
    std::string journal_plugin_id, std::string persistence_id) {
  return OnReadJournal(
      std::move(journal_plugin_id),
      [id = std::move(persistence_id)](ReadJournal& j, int64_t offset) {
        return j.EventsByPersistenceId(id, offset + 1,
                                       std::numeric_limits<int64_t>::max());
      });
}

SourceProvider EventSourcedProvider::CurrentEventsByPersistenceId(
    std::string journal_plugin_id, std::string persistence_id) {
  return OnReadJournal(
      std::move(journal_plugin_id),
      [id = std::move(persistence_id)](ReadJournal& j, int64_t offset) {
        return j.CurrentEventsByPersistenceId(
            id, offset + 1, std::numeric_limits<int64_t>::max());
      });
}

absl::StatusOr<ProjectionSettings> ProjectionSettings::FromConfig(
    const hocon::Config& config) {
  ProjectionSettings s;
  absl::Status status;
  auto get = [&](auto value, auto& into) {
    if (!status.ok()) return;
    if (!value.ok()) {
      status = absl::InvalidArgumentError(value.status().message());
      return;
    }
    into = static_cast<std::decay_t<decltype(into)>>(*value);
  };
  const std::string backoff = std::string(kBlock) + "restart-backoff.";
  const std::string at_least_once = std::string(kBlock) + "at-least-once.";
  get(config.GetDuration(backoff + "min-backoff"), s.min_backoff);
  get(config.GetDuration(backoff + "max-backoff"), s.max_backoff);
  get(config.GetDouble(backoff + "random-factor"), s.random_factor);
  get(config.GetInt(backoff + "max-restarts"), s.max_restarts);
  get(config.GetInt(at_least_once + "save-offset-after-envelopes"),
      s.save_offset_after_envelopes);
  get(config.GetDuration(at_least_once + "save-offset-after-duration"),
      s.save_offset_after_duration);
  int batch_size = 0;
  get(config.GetInt(std::string(kBlock) + "batch-size"), batch_size);
  if (!status.ok()) return status;
  if (batch_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock, "batch-size must be at least 1, not ", batch_size));
  }
  s.batch_size = static_cast<std::size_t>(batch_size);
  if (absl::Status v = s.Validate(); !v.ok()) return v;
  return s;
}

absl::Status ProjectionSettings::Validate() const {
  if (min_backoff <= absl::ZeroDuration() || max_backoff < min_backoff ||
      random_factor < 0 || random_factor > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock,
        "restart-backoff: min-backoff must be positive, max-backoff at "
        "least min-backoff and random-factor in [0, 1]"));
  }
  if (max_restarts < -1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock,
        "restart-backoff.max-restarts must be -1 (never give up) or "
        "at least 0"));
  }
  if (save_offset_after_envelopes < 1 ||
      save_offset_after_duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock,
        "at-least-once: save-offset-after-envelopes must be at least 1 and "
        "save-offset-after-duration positive"));
  }
  if (batch_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "batch-size must be at least 1"));
  }
  return absl::OkStatus();
}

Projection Projection::AtLeastOnce(ProjectionId id, SourceProvider source,
                                   std::shared_ptr<ProjectionStore> offsets,
                                   HandlerFactory handler) {
  Projection p;
  p.id_ = std::move(id);
  p.source_ = std::move(source);
  p.store_ = std::move(offsets);
  p.at_least_once_ = std::move(handler);
  return p;
}

Projection Projection::ExactlyOnce(ProjectionId id, SourceProvider source,
                                   std::shared_ptr<ProjectionStore> store,
                                   ExactlyOnceHandlerFactory handler) {
  Projection p;
  p.id_ = std::move(id);
  p.source_ = std::move(source);
  p.store_ = std::move(store);
  p.exactly_once_ = std::move(handler);
  return p;
}

Projection Projection::WithSettings(ProjectionSettings settings) const {
  Projection p = *this;
  p.settings_ = settings;
  return p;
}

Projection Projection::WithStatusObserver(actor::ActorRef observer) const {
  Projection p = *this;
  p.observer_ = std::move(observer);
  return p;
}

actor::Props Projection::Props() const {
  if (absl::Status s = settings_.Validate(); !s.ok()) {
    throw std::invalid_argument(std::string(s.message()));
  }
  if (!source_ || store_ == nullptr || (!at_least_once_ && !exactly_once_)) {
    throw std::invalid_argument(
        absl::StrCat("projection '", id_.name,
                     "' needs a source, a store and a handler factory"));
  }
  projection_internal::ProjectionSpec spec{
      id_,           source_,   store_,   at_least_once_,
      exactly_once_, settings_, observer_};
  actor::Props runner =
      actor::Props::Create<projection_internal::ProjectionRunner>(
          std::move(spec));
  return backoff::BackoffSupervisor::Props(
      backoff::Backoff::OnFailure(std::move(runner), "runner",
                                  settings_.min_backoff, settings_.max_backoff,
                                  settings_.random_factor)
          .WithMaxNrOfRetries(settings_.max_restarts));
}

}  // namespace cairn::persistence
