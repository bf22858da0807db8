#include "sharding/entity_region.h"

#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/ask.h"
#include "actor/coordinated_shutdown.h"
#include "actor/future.h"
#include "sharding/internal/region.h"

namespace cairn::sharding {
namespace {

constexpr char kBlock[] = "akka.cluster.sharding.";

// A duration, or `off` (false) for zero.
absl::StatusOr<absl::Duration> DurationOrOff(const hocon::Config& config,
                                             const std::string& path) {
  if (absl::StatusOr<bool> off = config.GetBool(path); off.ok() && !*off) {
    return absl::ZeroDuration();
  }
  absl::StatusOr<absl::Duration> d = config.GetDuration(path);
  if (!d.ok() || *d < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " must be a duration of at least 0 or off"));
  }
  return d;
}

absl::Status Validate(const EntityRegionSettings& s) {
  if (s.number_of_shards < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "number-of-shards must be at least 1, not ",
                     s.number_of_shards));
  }
  if (s.passivate_idle_entity_after < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock, "passivate-idle-entity-after must not be negative"));
  }
  if (s.entity_restart_backoff < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "entity-restart-backoff must not be negative"));
  }
  if (s.snapshot_after < 1 || s.keep_nr_of_batches < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock, "snapshot-after and keep-nr-of-batches must be at least 1"));
  }
  if (s.max_updates_per_write < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock,
                     "event-sourced-remember-entities-store.max-updates-per-"
                     "write must be at least 1"));
  }
  if (s.handoff_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "handoff-timeout must be positive"));
  }
  if (s.rebalance_interval < absl::ZeroDuration() ||
      s.rebalance_threshold < 1 || s.max_simultaneous_rebalance < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock,
                     "rebalance-interval must not be negative, and "
                     "least-shard-allocation-strategy.{rebalance-threshold, "
                     "max-simultaneous-rebalance} must be at least 1"));
  }
  if (s.lease_ttl <= absl::ZeroDuration() ||
      s.lease_retry_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock, "lease-ttl and lease-retry-interval must be positive"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EntityRegionSettings> EntityRegionSettings::FromConfig(
    const hocon::Config& config) {
  EntityRegionSettings s;
  const std::string block = kBlock;
  absl::StatusOr<int> shards = config.GetInt(block + "number-of-shards");
  if (!shards.ok())
    return absl::InvalidArgumentError(shards.status().message());
  s.number_of_shards = *shards;
  absl::StatusOr<absl::Duration> idle =
      DurationOrOff(config, block + "passivate-idle-entity-after");
  if (!idle.ok()) return idle.status();
  s.passivate_idle_entity_after = *idle;
  const std::string strategy_path = block + "passivation.strategy";
  absl::StatusOr<std::string> strategy = config.GetString(strategy_path);
  if (!strategy.ok() ||
      (*strategy != "default-strategy" && *strategy != "none")) {
    return absl::InvalidArgumentError(absl::StrCat(
        strategy_path, " must be default-strategy or none (", kBlock,
        "passivation.active-entity-limit sets the default strategy's limit)"));
  }
  const std::string limit_path = block + "passivation.active-entity-limit";
  if (absl::StatusOr<bool> off = config.GetBool(limit_path);
      off.ok() && !*off) {
    s.active_entity_limit = 0;
  } else {
    absl::StatusOr<int64_t> limit = config.GetLong(limit_path);
    if (!limit.ok() || *limit < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(limit_path, " must be a number of at least 1 or off"));
    }
    s.active_entity_limit = static_cast<std::size_t>(*limit);
  }
  if (*strategy == "none") {  // Akka's: no automatic passivation at all
    s.passivate_idle_entity_after = absl::ZeroDuration();
    s.active_entity_limit = 0;
  }
  absl::StatusOr<int64_t> buffer = config.GetLong(block + "buffer-size");
  if (!buffer.ok() || *buffer < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "buffer-size must be a number of at least 0"));
  }
  s.buffer_size = static_cast<std::size_t>(*buffer);

  absl::StatusOr<bool> remember = config.GetBool(block + "remember-entities");
  if (!remember.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "remember-entities must be on or off"));
  }
  s.remember_entities = *remember;
  absl::StatusOr<std::string> store =
      config.GetString(block + "remember-entities-store");
  if (!store.ok() || *store != "eventsourced") {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock,
        "remember-entities-store must be eventsourced (ddata needs a "
        "cluster)"));
  }
  for (auto [key, field] :
       {std::pair{"journal-plugin-id", &s.journal_plugin_id},
        std::pair{"snapshot-plugin-id", &s.snapshot_plugin_id}}) {
    absl::StatusOr<std::string> id = config.GetString(block + key);
    if (!id.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kBlock, key, " must be a string"));
    }
    *field = *std::move(id);
  }
  absl::StatusOr<absl::Duration> backoff =
      config.GetDuration(block + "entity-restart-backoff");
  if (!backoff.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "entity-restart-backoff must be a duration"));
  }
  s.entity_restart_backoff = *backoff;
  for (auto [key, field] :
       {std::pair{"snapshot-after", &s.snapshot_after},
        std::pair{"keep-nr-of-batches", &s.keep_nr_of_batches}}) {
    absl::StatusOr<int> n = config.GetInt(block + key);
    if (!n.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kBlock, key, " must be a number"));
    }
    *field = *n;
  }
  absl::StatusOr<int64_t> per_write = config.GetLong(
      block + "event-sourced-remember-entities-store.max-updates-per-write");
  if (!per_write.ok() || *per_write < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        kBlock,
        "event-sourced-remember-entities-store.max-updates-per-write must be "
        "a number of at least 1"));
  }
  s.max_updates_per_write = static_cast<std::size_t>(*per_write);
  for (auto [key, field] :
       {std::pair{"lease-ttl", &s.lease_ttl},
        std::pair{"lease-retry-interval", &s.lease_retry_interval}}) {
    absl::StatusOr<absl::Duration> d = config.GetDuration(block + key);
    if (!d.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kBlock, key, " must be a duration"));
    }
    *field = *d;
  }
  absl::StatusOr<std::string> owner = config.GetString(block + "lease-owner");
  if (!owner.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "lease-owner must be a string"));
  }
  s.lease_owner = *std::move(owner);
  absl::StatusOr<std::string> role = config.GetString(block + "role");
  if (!role.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "role must be a string"));
  }
  s.role = *std::move(role);
  absl::StatusOr<absl::Duration> rebalance =
      config.GetDuration(block + "rebalance-interval");
  if (!rebalance.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "rebalance-interval must be a duration"));
  }
  s.rebalance_interval = *rebalance;
  absl::StatusOr<absl::Duration> handoff =
      config.GetDuration(block + "handoff-timeout");
  if (!handoff.ok() || *handoff <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kBlock, "handoff-timeout must be a positive duration"));
  }
  s.handoff_timeout = *handoff;
  for (auto [key, field] :
       {std::pair{"least-shard-allocation-strategy.rebalance-threshold",
                  &s.rebalance_threshold},
        std::pair{"least-shard-allocation-strategy.max-simultaneous-rebalance",
                  &s.max_simultaneous_rebalance}}) {
    absl::StatusOr<int> n = config.GetInt(block + key);
    if (!n.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kBlock, key, " must be a number"));
    }
    *field = *n;
  }
  if (absl::Status v = Validate(s); !v.ok()) return v;
  return s;
}

actor::Props EntityRegion::Props(
    std::string type_name, EntityProps entity_props,
    EntityRegionSettings settings,
    std::shared_ptr<const MessageExtractor> extractor) {
  if (absl::Status v = Validate(settings); !v.ok()) {
    throw std::invalid_argument(std::string(v.message()));
  }
  if (!entity_props || extractor == nullptr) {
    throw std::invalid_argument(absl::StrCat(
        "entity region '", type_name, "' needs entity props and an extractor"));
  }
  return actor::Props::Create<internal::Region>(
      std::move(type_name), std::move(entity_props), std::move(settings),
      std::move(extractor));
}

namespace {

// Adds the region's graceful stop to coordinated shutdown, in its
// cluster-sharding-shutdown-region phase. In a cluster the region hands
// its shards off there and keeps routing (it stops with the system), so
// that what others send while they learn this member leaves still reaches
// the shards' next homes.
void StopWithCoordinatedShutdown(
    actor::ActorSystem& system, const actor::ActorRef& region,
    const std::string& name,
    std::shared_ptr<actor::Promise<actor::Done>> stopped) {
  const bool in_cluster = internal::Region::InCluster(system);
  actor::CoordinatedShutdown& shutdown =
      actor::CoordinatedShutdown::Get(system);
  const char* phase =
      actor::CoordinatedShutdown::kPhaseClusterShardingShutdownRegion;
  const absl::Duration timeout = shutdown.PhaseTimeout(phase);
  // The phase exists in every configuration (reference.conf), so this
  // cannot fail but for a config that removed it, which is reported.
  absl::Status added = shutdown.AddTask(
      phase, absl::StrCat("shutdown-region-", name),
      actor::CoordinatedShutdown::Task([region, timeout, in_cluster, stopped] {
        actor::Promise<actor::Done> done;
        actor::Future<actor::Done> result = done.GetFuture();
        // Done when the region has stopped, whenever that was.
        stopped->GetFuture().OnComplete(
            [done](const actor::Future<actor::Done>&) mutable {
              done.TrySetValue(actor::Done{});
            });
        if (in_cluster) {
          // Or once it has handed its shards off (it routes on until the
          // system stops).
          actor::Ask<internal::HandedOff>(region, internal::HandOffAll{},
                                          timeout)
              .OnComplete(
                  [done](const actor::Future<internal::HandedOff>&) mutable {
                    done.TrySetValue(actor::Done{});
                  });
        } else {
          region.Tell(GracefulShutdown{});
        }
        return result;
      }));
  if (!added.ok()) {
    system.Log(region.Path().ToString())
        .Warning(absl::StrCat("the region is not stopped by coordinated "
                              "shutdown: ",
                              added.message()));
  }
}

// The props of a region started at /user/<type>: in a cluster, with the
// route that sends its actors' messages for shards elsewhere on their
// threads (internal/region_route.h).
actor::Props RegionProps(actor::ActorSystem& system,
                         const std::string& type_name,
                         EntityRegion::EntityProps entity_props,
                         EntityRegionSettings settings,
                         std::shared_ptr<const MessageExtractor> extractor,
                         std::shared_ptr<actor::Promise<actor::Done>> stopped) {
  std::shared_ptr<internal::RegionRoute> route;
  if (internal::Region::InCluster(system)) {
    route = std::make_shared<internal::RegionRoute>(
        &system, extractor, settings.number_of_shards,
        &internal::Region::HandlesItself);
  }
  actor::Props props = actor::Props::Create<internal::Region>(
      type_name, std::move(entity_props), std::move(settings),
      std::move(extractor), std::move(stopped), route);
  return route == nullptr ? props : props.WithSendRoute(route);
}

}  // namespace

actor::ActorRef EntityRegion::Start(
    actor::ActorSystem& system, const std::string& type_name,
    EntityProps entity_props, EntityRegionSettings settings,
    std::shared_ptr<const MessageExtractor> extractor) {
  if (absl::Status v =
          internal::Region::ValidateOn(system, settings, /*proxy=*/false);
      !v.ok()) {
    throw std::invalid_argument(std::string(v.message()));
  }
  // Checks the settings, the props and the extractor.
  (void)Props(type_name, entity_props, settings, extractor);
  auto stopped = std::make_shared<actor::Promise<actor::Done>>();
  actor::ActorRef region = system.ActorOf(
      RegionProps(system, type_name, std::move(entity_props),
                  std::move(settings), std::move(extractor), stopped),
      type_name);
  StopWithCoordinatedShutdown(system, region, type_name, stopped);
  return region;
}

actor::ActorRef EntityRegion::StartProxy(
    actor::ActorSystem& system, const std::string& type_name,
    EntityRegionSettings settings,
    std::shared_ptr<const MessageExtractor> extractor) {
  if (absl::Status v = Validate(settings); !v.ok()) {
    throw std::invalid_argument(std::string(v.message()));
  }
  if (absl::Status v =
          internal::Region::ValidateOn(system, settings, /*proxy=*/true);
      !v.ok()) {
    throw std::invalid_argument(std::string(v.message()));
  }
  if (extractor == nullptr) {
    throw std::invalid_argument(
        absl::StrCat("region proxy '", type_name, "' needs an extractor"));
  }
  // At the regions' path: a member whose proxy is chosen as a shard's home
  // (rendezvous knows members, not what they run) routes the messages on.
  auto stopped = std::make_shared<actor::Promise<actor::Done>>();
  actor::ActorRef proxy = system.ActorOf(
      RegionProps(system, type_name, EntityProps(), std::move(settings),
                  std::move(extractor), stopped),
      type_name);
  StopWithCoordinatedShutdown(system, proxy, type_name, stopped);
  return proxy;
}

}  // namespace cairn::sharding
