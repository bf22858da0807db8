#include "persistence/persistence.h"

#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/mutex.h"
#include "persistence/internal/event_adapter_config.h"
#include "persistence/internal/opening_plugins.h"
#include "persistence/internal/persistent_actor_protocol.h"
#include "persistence/internal/recovery_permitter.h"
#include "persistence/internal/recovery_watchdog.h"
#include "persistence/storage/event_adapting_journal.h"
#include "persistence/storage/plugin_provider.h"

namespace cairn::persistence {
namespace {

// The reference.conf registered with this library sets every key read
// here, so a failure is a wrong type in the application's config: that
// must not pass silently, and there is no caller to return it to from a
// constructor, so the actor system's log gets it and the default stands.
template <typename T>
T Read(actor::ActorSystem& system, absl::StatusOr<T> value, T fallback) {
  if (value.ok()) return *std::move(value);
  system.Log("persistence").Error(std::string(value.status().message()));
  return fallback;
}

// A plugin id nobody registered: most often a plugin not linked.
absl::Status WithLinkHint(const absl::Status& not_found) {
  return absl::NotFoundError(absl::StrCat(
      not_found.message(),
      "; a plugin is registered when its package's :registration target is "
      "linked (//persistence:default_plugins links RocksDB, PostgreSQL and "
      "in-memory)"));
}

// reference.conf's akka.persistence.journal-plugin-fallback.replay-batch-size.
constexpr int64_t kDefaultReplayBatchSize = 1000;

}  // namespace

Persistence::Persistence(actor::ActorSystem& system) : system_(system) {
  const hocon::Config& config = system.Settings();
  default_journal_ =
      Read(system, config.GetString("akka.persistence.journal.plugin"),
           std::string(kRocksDbJournalPluginId));
  default_snapshot_store_ =
      Read(system, config.GetString("akka.persistence.snapshot-store.plugin"),
           std::string(kRocksDbSnapshotStorePluginId));
  default_durable_state_store_ = Read(
      system, config.GetString("akka.persistence.state.plugin"), std::string());
  fallback_recovery_timeout_ = Read(
      system,
      config.GetDuration(
          "akka.persistence.journal-plugin-fallback.recovery-event-timeout"),
      absl::Seconds(30));
  int max_recoveries = Read(
      system, config.GetInt("akka.persistence.max-concurrent-recoveries"), 50);
  if (max_recoveries < 1) {
    system.Log("persistence")
        .Error(absl::StrCat("akka.persistence.max-concurrent-recoveries must "
                            "be at least 1, not ",
                            max_recoveries, "; using 1"));
    max_recoveries = 1;
  }
  permitter_ = std::make_unique<internal::RecoveryPermitter>(max_recoveries);
  watchdog_ = std::make_unique<internal::RecoveryWatchdog>(
      system.Scheduler(), [](const actor::ActorRef& actor, uint64_t instance) {
        actor.Tell(
            internal::Reply(instance, internal::Protocol::Kind::kRecoveryTick),
            actor::ActorRef());
      });
  serialization_ = std::make_shared<serialization::SerializationRegistry>();
  registration_ = RegisterLinkedPlugins();
}

Persistence::~Persistence() {
  // Stores complete their pending operations in their destructors; the
  // journals go first, as snapshots refer to the events.
  journals_.clear();
  snapshot_stores_.clear();
  durable_state_stores_.clear();
}

absl::Status Persistence::RegisterLinkedPlugins() {
  const PluginSetup setup{
      system_.Settings(),
      // The stores live in ~Persistence, before the system's event stream
      // goes.
      [&system = system_](PluginLogLevel level, std::string_view source,
                          std::string_view line) {
        actor::LoggingAdapter log = system.Log(std::string(source));
        switch (level) {
          case PluginLogLevel::kInfo:
            return log.Info(line);
          case PluginLogLevel::kWarning:
            return log.Warning(line);
          case PluginLogLevel::kError:
            return log.Error(line);
        }
      }};
  for (auto& [name, provider] : PluginProviders::All()) {
    if (absl::Status s = provider(plugins_, setup); !s.ok()) {
      return absl::Status(
          s.code(), absl::StrCat("the plugins of ", name, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status Persistence::Setup(PersistenceSetup setup) {
  base::MutexLock lock(&mu_);
  if (used_) {
    return absl::FailedPreconditionError(
        "Persistence::Setup after a journal or snapshot store was made: call "
        "it before starting persistent actors");
  }
  if (set_up_) {
    return absl::FailedPreconditionError("Persistence::Setup called twice");
  }
  set_up_ = true;
  if (setup.serialization != nullptr) {
    serialization_ = std::move(setup.serialization);
  }
  event_adapters_ = std::move(setup.event_adapters);
  bind_event_adapters_ = std::move(setup.bind_event_adapters);
  if (setup.register_plugins) return setup.register_plugins(plugins_);
  return absl::OkStatus();
}

std::string Persistence::Resolve(std::string_view plugin_id,
                                 bool journal) const {
  if (!plugin_id.empty()) return std::string(plugin_id);
  return journal ? default_journal_ : default_snapshot_store_;
}

absl::StatusOr<Journal*> Persistence::JournalFor(std::string_view plugin_id) {
  std::string id = Resolve(plugin_id, /*journal=*/true);
  base::MutexLock lock(&mu_);
  if (!registration_.ok()) return registration_;
  used_ = true;
  auto it = journals_.find(id);
  if (it != journals_.end()) return it->second.get();
  if (absl::Status found = plugins_.FindJournal(id); !found.ok()) {
    return WithLinkHint(found);
  }
  // Made (RocksDB opened) on a thread of its own: this runs on a dispatcher
  // thread, under mu_, and an open can take seconds after a crash.
  auto journal = std::make_unique<internal::OpeningJournal>(
      [this, id]() -> absl::StatusOr<std::unique_ptr<Journal>> {
        absl::StatusOr<std::unique_ptr<Journal>> made = MakeJournal(id);
        if (made.ok()) return made;
        return absl::Status(
            made.status().code(),
            absl::StrCat("journal plugin ", id, ": ", made.status().message()));
      });
  Journal* result = journal.get();
  journals_.emplace(id, std::move(journal));
  return result;
}

// Runs on the opening thread; reads only what Setup fixed before the first
// journal was made (used_), so it needs no lock.
absl::StatusOr<std::unique_ptr<Journal>> Persistence::MakeJournal(
    const std::string& id) const {
  absl::StatusOr<std::shared_ptr<const EventAdapters>> adapters =
      internal::EventAdaptersOfPlugin(system_.Settings(), id, event_adapters_,
                                      *serialization_, bind_event_adapters_);
  if (!adapters.ok()) return adapters.status();
  absl::StatusOr<std::unique_ptr<Journal>> journal =
      plugins_.CreateJournal(id, PluginContext{serialization_});
  if (!journal.ok() || *adapters == nullptr) return journal;
  return std::unique_ptr<Journal>(std::make_unique<EventAdaptingJournal>(
      *std::move(journal), *std::move(adapters)));
}

absl::StatusOr<SnapshotStore*> Persistence::SnapshotStoreFor(
    std::string_view plugin_id) {
  std::string id = Resolve(plugin_id, /*journal=*/false);
  base::MutexLock lock(&mu_);
  if (!registration_.ok()) return registration_;
  used_ = true;
  auto it = snapshot_stores_.find(id);
  if (it != snapshot_stores_.end()) return it->second.get();
  if (absl::Status found = plugins_.FindSnapshotStore(id); !found.ok()) {
    return WithLinkHint(found);
  }
  auto store = std::make_unique<internal::OpeningSnapshotStore>(
      [this, id, context = PluginContext{serialization_}]()
          -> absl::StatusOr<std::unique_ptr<SnapshotStore>> {
        absl::StatusOr<std::unique_ptr<SnapshotStore>> made =
            plugins_.CreateSnapshotStore(id, context);
        if (made.ok()) return made;
        return absl::Status(made.status().code(),
                            absl::StrCat("snapshot store plugin ", id, ": ",
                                         made.status().message()));
      });
  SnapshotStore* result = store.get();
  snapshot_stores_.emplace(id, std::move(store));
  return result;
}

absl::StatusOr<DurableStateStore*> Persistence::DurableStateStoreFor(
    std::string_view plugin_id) {
  std::string id =
      plugin_id.empty() ? default_durable_state_store_ : std::string(plugin_id);
  if (id.empty()) {
    return absl::FailedPreconditionError(
        "no durable state store: akka.persistence.state.plugin is empty and "
        "none was named");
  }
  base::MutexLock lock(&mu_);
  if (!registration_.ok()) return registration_;
  used_ = true;
  auto it = durable_state_stores_.find(id);
  if (it != durable_state_stores_.end()) return it->second.get();
  if (absl::Status found = plugins_.FindDurableStateStore(id); !found.ok()) {
    return WithLinkHint(found);
  }
  auto store = std::make_unique<internal::OpeningDurableStateStore>(
      [this, id, context = PluginContext{serialization_}]()
          -> absl::StatusOr<std::unique_ptr<DurableStateStore>> {
        absl::StatusOr<std::unique_ptr<DurableStateStore>> made =
            plugins_.CreateDurableStateStore(id, context);
        if (made.ok()) return made;
        return absl::Status(made.status().code(),
                            absl::StrCat("durable state store plugin ", id,
                                         ": ", made.status().message()));
      });
  DurableStateStore* result = store.get();
  durable_state_stores_.emplace(id, std::move(store));
  return result;
}

absl::Status Persistence::ClaimPersistenceId(std::string_view journal_plugin_id,
                                             std::string_view persistence_id,
                                             const actor::ActorRef& holder) {
  std::string journal = Resolve(journal_plugin_id, /*journal=*/true);
  base::MutexLock lock(&writers_mu_);
  auto [it, claimed] =
      writers_[journal].try_emplace(std::string(persistence_id), holder);
  if (claimed || it->second == holder) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "persistence id \"", std::string(persistence_id), "\" is in use by ",
      it->second.Path().ToString(), " on journal ", journal,
      ": one live writer per persistence id (stop that actor first)"));
}

void Persistence::ReleasePersistenceId(std::string_view journal_plugin_id,
                                       std::string_view persistence_id,
                                       const actor::ActorRef& holder) {
  const std::string journal = Resolve(journal_plugin_id, /*journal=*/true);
  base::MutexLock lock(&writers_mu_);
  auto writers = writers_.find(journal);
  if (writers == writers_.end()) return;
  absl::flat_hash_map<std::string, actor::ActorRef>& ids = writers->second;
  auto it =
      ids.find(absl::string_view(persistence_id.data(), persistence_id.size()));
  if (it == ids.end() || it->second != holder) return;
  ids.erase(it);
  // A flat table keeps its size: after a peak of entities has passivated,
  // give the memory back (amortized: a rehash per halving).
  if (ids.capacity() > 1024 && ids.size() * 8 < ids.capacity()) ids.rehash(0);
}

// --- Write fences
// -------------------------------------------------------------

namespace {

// The path's first `n` elements, joined: a scope's key.
std::string PathKey(const actor::ActorPath& path, std::size_t n) {
  const std::vector<std::string>& elements = path.elements();
  return absl::StrJoin(elements.begin(), elements.begin() + n, "/");
}

}  // namespace

std::shared_ptr<const WriteFence> WriteFenceScope::Current() const {
  base::MutexLock lock(&mu_);
  return fence_;
}

void WriteFenceScope::Set(std::optional<WriteFence> fence) {
  std::shared_ptr<const WriteFence> next;
  if (fence.has_value()) {
    next = std::make_shared<const WriteFence>(*std::move(fence));
  }
  base::MutexLock lock(&mu_);
  fence_.swap(next);
}

void Persistence::SetWriteFence(const actor::ActorRef& scope,
                                std::optional<WriteFence> fence) {
  const actor::ActorPath& path = scope.Path();
  std::shared_ptr<WriteFenceScope> slot;
  {
    base::MutexLock lock(&fence_mu_);
    auto& entry = fence_scopes_[PathKey(path, path.elements().size())];
    if (entry.second == nullptr || entry.first != scope) {
      entry = {scope, std::make_shared<WriteFenceScope>(path.ToString())};
    }
    slot = entry.second;
  }
  slot->Set(std::move(fence));
}

void Persistence::RemoveWriteFenceScope(const actor::ActorRef& scope) {
  const actor::ActorPath& path = scope.Path();
  base::MutexLock lock(&fence_mu_);
  auto it = fence_scopes_.find(PathKey(path, path.elements().size()));
  if (it != fence_scopes_.end() && it->second.first == scope) {
    fence_scopes_.erase(it);
  }
}

std::shared_ptr<const WriteFenceScope> Persistence::WriteFenceScopeOf(
    const actor::ActorRef& actor) const {
  const actor::ActorPath& path = actor.Path();
  base::MutexLock lock(&fence_mu_);
  if (fence_scopes_.empty()) return nullptr;
  for (std::size_t n = path.elements().size(); n-- > 1;) {
    auto it = fence_scopes_.find(PathKey(path, n));
    if (it != fence_scopes_.end()) return it->second.second;
  }
  return nullptr;
}

const Persistence::RecoverySettings& Persistence::RecoverySettingsFor(
    std::string_view journal_plugin_id) {
  {
    base::MutexLock lock(&mu_);
    auto it = recovery_settings_.find(journal_plugin_id);
    if (it != recovery_settings_.end()) return *it->second;
  }
  // Read outside the lock; a second thread reading too keeps the first.
  auto settings = std::make_unique<const RecoverySettings>(
      ReadRecoverySettings(Resolve(journal_plugin_id, true)));
  base::MutexLock lock(&mu_);
  auto [it, inserted] = recovery_settings_.try_emplace(
      std::string(journal_plugin_id), std::move(settings));
  return *it->second;
}

Persistence::RecoverySettings Persistence::ReadRecoverySettings(
    const std::string& plugin_id) const {
  absl::StatusOr<absl::Duration> timeout = system_.Settings().GetDuration(
      absl::StrCat(plugin_id, ".recovery-event-timeout"));
  return RecoverySettings{timeout.ok() ? *timeout : fallback_recovery_timeout_,
                          ReadReplayBatchSize(plugin_id),
                          ReadRetention(plugin_id)};
}

absl::StatusOr<int64_t> Persistence::ReadReplayBatchSize(
    const std::string& plugin_id) const {
  const hocon::Config& config = system_.Settings();
  std::string key = absl::StrCat(plugin_id, ".replay-batch-size");
  if (!config.HasPath(key)) {
    key = "akka.persistence.journal-plugin-fallback.replay-batch-size";
  }
  // A config without persistence's reference.conf merged in: the
  // reference's default.
  if (!config.HasPath(key)) return kDefaultReplayBatchSize;
  absl::StatusOr<int64_t> size = config.GetLong(key);
  if (!size.ok()) return size.status();
  if (*size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, " = ", *size, ": must be at least 1"));
  }
  return *size;
}

constexpr char kFallbackRetention[] =
    "akka.persistence.journal-plugin-fallback.retention.";

absl::StatusOr<RetentionCriteria> Persistence::ReadRetention(
    const std::string& plugin_id) const {
  const hocon::Config& config = system_.Settings();
  const std::string own = absl::StrCat(plugin_id, ".retention.");
  auto path = [&](std::string_view key) {
    std::string in_plugin = own + std::string(key);
    return config.HasPath(in_plugin) ? in_plugin
                                     : kFallbackRetention + std::string(key);
  };
  const std::string every_key = path("snapshot-every");
  const std::string keep_key = path("keep-n-snapshots");
  // A config without persistence's reference.conf merged in: off, and the
  // reference's defaults for the rest.
  if (!config.HasPath(every_key)) return RetentionCriteria::Disabled();
  absl::StatusOr<int64_t> every = config.GetLong(every_key);
  if (!every.ok()) return every.status();
  if (*every < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        every_key, " = ", *every, ": must be 0 (off) or a number of events"));
  }
  if (*every == 0) return RetentionCriteria::Disabled();
  absl::StatusOr<int64_t> keep = config.HasPath(keep_key)
                                     ? config.GetLong(keep_key)
                                     : absl::StatusOr<int64_t>(2);
  if (!keep.ok()) return keep.status();
  if (*keep < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(keep_key, " = ", *keep, ": must be at least 1"));
  }
  const std::string delete_key = path("delete-events-on-snapshot");
  absl::StatusOr<bool> delete_events = config.HasPath(delete_key)
                                           ? config.GetBool(delete_key)
                                           : absl::StatusOr<bool>(false);
  if (!delete_events.ok()) return delete_events.status();
  return RetentionCriteria{*every, *keep, *delete_events};
}

}  // namespace cairn::persistence
