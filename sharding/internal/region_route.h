#ifndef CAIRN_SHARDING_INTERNAL_REGION_ROUTE_H_
#define CAIRN_SHARDING_INTERNAL_REGION_ROUTE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/send_route.h"
#include "base/mutex.h"
#include "sharding/internal/routing_messages.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding::internal {

// How many messages the region's route sent on itself and how many it left
// to the region (a test's view: GetRouteStats).
struct RouteStats {
  int64_t taken = 0;
  int64_t declined = 0;
};
// Local only: the region answers RouteStats.
struct GetRouteStats {};

// The region's route on the sender's thread (actor/send_route.h), in a
// cluster: what the region would pass on at once goes there without a turn
// of the region's mailbox:
// - a message an actor of this member tells the region, for a shard hosted
//   elsewhere, to the home's region, as the region would forward it
//   (RoutedDelivery); for a shard hosted here, to the shard;
// - a RoutedDelivery (from another member's region, or its route) for a
//   shard hosted here, to the shard.
// The region publishes where each such shard's messages go (Update) after
// each message it processes, and withdraws a shard it holds, hands off or
// forgets before it has finished with the message that changed it (before
// it tells the shard to hand off or drain, if it does). The route sends
// under its lock, so nothing sent this way reaches a shard after what the
// region tells it once it has withdrawn it.
//
// A sender's order: a message is sent on only when no message of its
// stripe of shards (256 stripes, by the shard id's hash) is still queued
// in the region: the route counts what it declines, and the region's
// runtime calls Handled once the region has processed it. A sender's
// earlier message was then either passed on already, or held by the
// region, which had withdrawn the shard before it finished that message.
//
// Left to the region: messages for an entity from anything but an actor of
// this system (their order is kept by the mailbox alone), the region's own
// protocol (`handles_itself`) but RoutedDelivery, messages the extractor
// names no entity for or throws on, and StartEntity (a StartEntity and
// what the extractor throws on for EntityMessage are counted, so that
// nothing of their sender overtakes them).
//
// Thread safety: OnSend on any sender's thread; Update and UnpublishAll on
// the region's; Handled on the region's, or on a sender's when the
// region's mailbox refused the message; Stats anywhere.
class RegionRoute final : public actor::SendRoute {
 public:
  using Protocol = bool (*)(const std::type_info& type);
  // `system`: the region's, which outlives this route's use.
  RegionRoute(actor::ActorSystem* system,
              std::shared_ptr<const MessageExtractor> extractor,
              int number_of_shards, Protocol handles_itself);

  Decision OnSend(const actor::AnyMessage& message,
                  const actor::ActorRef& sender) override;
  void Handled(uint32_t token) override;

  // Where a published shard's messages go: the region of its home in
  // another member, or (`hosted`) the shard's actor here.
  struct Target {
    actor::ActorRef ref;  // nobody: withdrawn
    bool hosted = false;
  };
  // Each shard with its target.
  void Update(const std::vector<std::pair<std::string, Target>>& changes);
  void UnpublishAll();
  RouteStats Stats() const;

 private:
  static constexpr int kStripes = 256;

  Decision OnRouted(const RoutedDelivery& routed,
                    const actor::ActorRef& sender);
  static uint32_t StripeOf(const std::string& shard_id);
  // Declines a message of `stripe`, counted until the region has
  // processed it.
  Decision Queue(uint32_t stripe);
  // Whether a message of `stripe` the route declined is still queued.
  bool Behind(uint32_t stripe) const;
  // handles_itself_, remembering a few types that are not: comparing
  // type_infos costs a strcmp each, and a region knows about 30 types.
  bool IsProtocol(const std::type_info& type);
  // Calls `send(target)` (which returns whether it sent) with `shard_id`'s
  // published target, under the lock; false when it is not published.
  template <typename Send>
  bool SendIfPublished(const std::string& shard_id, const Send& send);

  actor::ActorSystem* const system_;
  const std::shared_ptr<const MessageExtractor> extractor_;
  const int number_of_shards_;
  const Protocol handles_itself_;
  // Types seen not to be the region's protocol, by their type_info's
  // address (the same address is the same type; another address of the
  // same type only misses).
  static constexpr int kKnownTypes = 4;
  std::array<std::atomic<const std::type_info*>, kKnownTypes> entity_types_{};
  std::atomic<uint32_t> next_known_{0};

  mutable base::ReaderWriterMutex mu_;
  absl::flat_hash_map<std::string, Target> published_ ABSL_GUARDED_BY(mu_);
  // Declined messages the region has not processed yet, by stripe.
  std::array<std::atomic<int32_t>, kStripes> queued_{};
  std::atomic<int64_t> taken_{0};
  std::atomic<int64_t> declined_{0};
};

}  // namespace cairn::sharding::internal

#endif  // CAIRN_SHARDING_INTERNAL_REGION_ROUTE_H_
