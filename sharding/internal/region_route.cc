#include "sharding/internal/region_route.h"

#include <optional>
#include <utility>

#include "absl/hash/hash.h"
#include "sharding/entity_region.h"
#include "sharding/internal/shard.h"

namespace cairn::sharding::internal {

RegionRoute::RegionRoute(actor::ActorSystem* system,
                         std::shared_ptr<const MessageExtractor> extractor,
                         int number_of_shards, Protocol handles_itself)
    : system_(system),
      extractor_(std::move(extractor)),
      number_of_shards_(number_of_shards),
      handles_itself_(handles_itself) {}

uint32_t RegionRoute::StripeOf(const std::string& shard_id) {
  return absl::Hash<std::string>{}(shard_id) % kStripes;
}

actor::SendRoute::Decision RegionRoute::Queue(uint32_t stripe) {
  // Counted before it is queued, so that the next message of its sender
  // sees it.
  queued_[stripe].fetch_add(1, std::memory_order_relaxed);
  declined_.fetch_add(1, std::memory_order_relaxed);
  return Decline(stripe + 1);
}

bool RegionRoute::Behind(uint32_t stripe) const {
  // Acquire: the region's changes to what is published, made before it
  // finished the messages counted here, are seen after this.
  return queued_[stripe].load(std::memory_order_acquire) != 0;
}

bool RegionRoute::IsProtocol(const std::type_info& type) {
  for (const std::atomic<const std::type_info*>& known : entity_types_) {
    if (known.load(std::memory_order_relaxed) == &type) return false;
  }
  if (handles_itself_(type)) return true;
  entity_types_[next_known_.fetch_add(1, std::memory_order_relaxed) %
                kKnownTypes]
      .store(&type, std::memory_order_relaxed);
  return false;
}

template <typename Send>
bool RegionRoute::SendIfPublished(const std::string& shard_id,
                                  const Send& send) {
  // The send happens under the lock, so that once the region's Update has
  // withdrawn a target nothing is still on its way to it from here: what
  // the region tells the shard next (HandOff, DrainDeclined) comes after
  // every message sent this way. Sending never comes back here (a shard
  // has no route, and a home's region is in another member).
  base::ReaderMutexLock lock(&mu_);
  auto it = published_.find(shard_id);
  if (it == published_.end()) return false;
  return send(it->second);
}

actor::SendRoute::Decision RegionRoute::OnSend(const actor::AnyMessage& message,
                                               const actor::ActorRef& sender) {
  if (const RoutedDelivery* routed = message.As<RoutedDelivery>()) {
    return OnRouted(*routed, sender);
  }
  // Only an actor of this member: the receiving region finds this member's
  // region by the sender's address, as for the region's own forwards, and
  // a sender that is not an actor (an Ask's, a test's probe) never comes
  // this way, so the mailbox alone keeps its order.
  if (sender.IsNobody() || sender.impl()->AsCell() == nullptr ||
      sender.impl()->GetSystem() != system_ || IsProtocol(message.type())) {
    return Decline();
  }
  const StartEntity* start = message.As<StartEntity>();
  std::optional<std::string> entity_id =
      start != nullptr ? std::optional<std::string>(start->entity_id)
                       : extractor_->EntityId(message);
  if (!entity_id.has_value()) return Decline();  // the region logs it
  const std::string shard_id =
      extractor_->ShardId(*entity_id, number_of_shards_);
  const uint32_t stripe = StripeOf(shard_id);
  // The region starts entities itself.
  if (start != nullptr || Behind(stripe)) return Queue(stripe);
  actor::AnyMessage entity_message;
  try {
    entity_message = extractor_->EntityMessage(message);
  } catch (...) {
    return Queue(stripe);  // in order, for the region to say what failed
  }
  const bool sent = SendIfPublished(shard_id, [&](const Target& target) {
    if (target.hosted) {
      // As the region's RouteInCluster: the origin left off, which is
      // this region (the sender's member's).
      target.ref.Tell(ShardDelivery{*entity_id, entity_message,
                                    /*start=*/false, 0, actor::ActorRef()},
                      sender);
    } else {
      // As the region's Forward: its first hop, the origin left off (the
      // sender's address names this member's region).
      target.ref.Tell(
          RoutedDelivery{shard_id, *entity_id, entity_message,
                         /*start=*/false, actor::ActorRef(), /*hops=*/1},
          sender);
    }
    return true;
  });
  if (!sent) return Queue(stripe);
  taken_.fetch_add(1, std::memory_order_relaxed);
  return Take();
}

actor::SendRoute::Decision RegionRoute::OnRouted(
    const RoutedDelivery& routed, const actor::ActorRef& sender) {
  // A shard that is not the entity's here: the region says so.
  if (extractor_->ShardId(routed.entity_id, number_of_shards_) !=
      routed.shard_id) {
    return Decline();
  }
  const uint32_t stripe = StripeOf(routed.shard_id);
  if (routed.start || Behind(stripe)) return Queue(stripe);
  const bool sent = SendIfPublished(routed.shard_id, [&](const Target& target) {
    // Another member's home: the region forwards it, counting its hops.
    if (!target.hosted) return false;
    target.ref.Tell(ShardDelivery{routed.entity_id, routed.message,
                                  /*start=*/false, routed.hops, routed.origin},
                    sender);
    return true;
  });
  if (!sent) return Queue(stripe);
  taken_.fetch_add(1, std::memory_order_relaxed);
  return Take();
}

void RegionRoute::Handled(uint32_t token) {
  // Release: pairs with Behind's acquire.
  queued_[token - 1].fetch_sub(1, std::memory_order_release);
}

void RegionRoute::Update(
    const std::vector<std::pair<std::string, Target>>& changes) {
  base::WriterMutexLock lock(&mu_);
  for (const auto& [shard_id, target] : changes) {
    if (target.ref.IsNobody()) {
      published_.erase(shard_id);
    } else {
      published_[shard_id] = target;
    }
  }
}

void RegionRoute::UnpublishAll() {
  base::WriterMutexLock lock(&mu_);
  published_.clear();
}

RouteStats RegionRoute::Stats() const {
  return RouteStats{taken_.load(std::memory_order_relaxed),
                    declined_.load(std::memory_order_relaxed)};
}

}  // namespace cairn::sharding::internal
