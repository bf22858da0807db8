// Sharding's messages across processes: serializer 13 (Akka's
// ClusterShardingMessageSerializer's), registered when sharding is linked,
// so applications register nothing for them. The messages they carry go
// through the transport's NestedMessages (the application's registry).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>

#include "absl/status/statusor.h"
#include "base/string_view.h"
#include "google/protobuf/arena.h"
#include "remote/actor_ref_serialization.h"
#include "remote/module_serializer.h"
#include "sharding/entity_region.h"
#include "sharding/internal/routing_messages.h"
#include "sharding/internal/sharding_wire.pb.h"
#include "sharding/message_extractor.h"

namespace cairn::sharding::internal {
namespace {

constexpr std::string_view kEnvelope = "ShardingEnvelope";
constexpr std::string_view kStartEntity = "StartEntity";
constexpr std::string_view kStartEntityAck = "StartEntityAck";
constexpr std::string_view kShardUnavailable = "ShardUnavailable";
constexpr std::string_view kRoutedDelivery = "RoutedDelivery";
constexpr std::string_view kShardHome = "ShardHome";
constexpr std::string_view kHostShard = "HostShard";
constexpr std::string_view kRegionStatus = "RegionStatus";

// A routed message through more regions than this is not routed on (the
// region drops it); a hop count above it on the wire is a broken frame.
constexpr uint32_t kMaxWireHops = 1000;

// A protobuf arena whose first block is on the stack: a message made in
// it, and its strings' objects, cost no allocation.
class ScratchArena {
 public:
  ScratchArena() : arena_(Options(block_)) {}
  template <typename M>
  M* Make() {
    return google::protobuf::Arena::CreateMessage<M>(&arena_);
  }

 private:
  static constexpr size_t kBlockSize = 1024;
  static google::protobuf::ArenaOptions Options(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kBlockSize;
    return options;
  }
  alignas(std::max_align_t) char block_[kBlockSize];
  google::protobuf::Arena arena_;
};

class ShardingSerializer final : public remote::ModuleSerializer {
 public:
  int32_t Identifier() const override { return 13; }

  std::optional<std::string> ManifestOf(
      const std::type_info& type) const override {
    if (type == typeid(ShardingEnvelope)) return std::string(kEnvelope);
    if (type == typeid(StartEntity)) return std::string(kStartEntity);
    if (type == typeid(StartEntityAck)) return std::string(kStartEntityAck);
    if (type == typeid(ShardUnavailable)) {
      return std::string(kShardUnavailable);
    }
    if (type == typeid(RoutedDelivery)) return std::string(kRoutedDelivery);
    if (type == typeid(ShardHome)) return std::string(kShardHome);
    if (type == typeid(HostShard)) return std::string(kHostShard);
    if (type == typeid(RegionStatus)) return std::string(kRegionStatus);
    return std::nullopt;
  }

  absl::StatusOr<std::string> Write(
      const actor::AnyMessage& message,
      const remote::NestedMessages& nested) const override {
    if (const auto* e = message.As<ShardingEnvelope>()) {
      wire::ShardingEnvelope m;
      m.set_entity_id(e->entity_id);
      absl::StatusOr<std::string> inner = nested.Write(e->message);
      if (!inner.ok()) return inner.status();
      m.set_message(*std::move(inner));
      return m.SerializeAsString();
    }
    if (const auto* s = message.As<StartEntity>()) {
      wire::StartEntity m;
      m.set_entity_id(s->entity_id);
      return m.SerializeAsString();
    }
    if (const auto* a = message.As<StartEntityAck>()) {
      wire::StartEntityAck m;
      m.set_entity_id(a->entity_id);
      m.set_shard_id(a->shard_id);
      return m.SerializeAsString();
    }
    if (const auto* u = message.As<ShardUnavailable>()) {
      wire::ShardUnavailable m;
      m.set_type_name(u->type_name);
      m.set_shard_id(u->shard_id);
      m.set_reason(u->reason);
      return m.SerializeAsString();
    }
    if (const auto* r = message.As<RoutedDelivery>()) {
      // Most of what regions send: made in a scratch arena, its fields
      // allocate only what does not fit in their strings.
      ScratchArena scratch;
      auto* m = scratch.Make<wire::RoutedDelivery>();
      m->set_shard_id(r->shard_id);
      m->set_entity_id(r->entity_id);
      absl::StatusOr<remote::NestedParts> inner = nested.WriteParts(r->message);
      if (!inner.ok()) return inner.status();
      m->set_message_serializer(inner->serializer_id);
      m->set_message_manifest(std::move(inner->manifest));
      m->set_message_bytes(std::move(inner->bytes));
      m->set_start(r->start);
      if (!r->origin.IsNobody()) {
        m->set_origin(remote::SerializedActorPath(r->origin));
      }
      m->set_hops(static_cast<uint32_t>(r->hops));
      return m->SerializeAsString();
    }
    if (const auto* h = message.As<ShardHome>()) {
      wire::ShardHome m;
      m.set_shard_id(h->shard_id);
      m.set_region(remote::SerializedActorPath(h->region));
      return m.SerializeAsString();
    }
    if (const auto* h = message.As<HostShard>()) {
      wire::HostShard m;
      m.set_shard_id(h->shard_id);
      return m.SerializeAsString();
    }
    if (const auto* l = message.As<RegionStatus>()) {
      wire::RegionStatus m;
      m.set_member(l->member);
      m.set_hosting(l->hosting);
      return m.SerializeAsString();
    }
    return absl::InvalidArgumentError(
        "the sharding serializer was given a message it does not write");
  }

  absl::StatusOr<actor::AnyMessage> Read(
      std::string_view manifest, std::string_view bytes,
      const remote::NestedMessages& nested) const override {
    auto unreadable = [manifest] {
      return absl::InvalidArgumentError(
          base::StrCat("the bytes of a ", manifest, " do not read"));
    };
    auto parse = [bytes](google::protobuf::Message& m) {
      return m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
    };
    if (manifest == kEnvelope) {
      wire::ShardingEnvelope m;
      if (!parse(m)) return unreadable();
      absl::StatusOr<actor::AnyMessage> inner = nested.Read(m.message());
      if (!inner.ok()) return inner.status();
      return actor::AnyMessage::Of(
          ShardingEnvelope{m.entity_id(), *std::move(inner)});
    }
    if (manifest == kStartEntity) {
      wire::StartEntity m;
      if (!parse(m)) return unreadable();
      return actor::AnyMessage::Of(StartEntity{m.entity_id()});
    }
    if (manifest == kStartEntityAck) {
      wire::StartEntityAck m;
      if (!parse(m)) return unreadable();
      return actor::AnyMessage::Of(StartEntityAck{m.entity_id(), m.shard_id()});
    }
    if (manifest == kShardUnavailable) {
      wire::ShardUnavailable m;
      if (!parse(m)) return unreadable();
      return actor::AnyMessage::Of(
          ShardUnavailable{m.type_name(), m.shard_id(), m.reason()});
    }
    if (manifest == kRoutedDelivery) {
      ScratchArena scratch;
      auto* m = scratch.Make<wire::RoutedDelivery>();
      if (!parse(*m)) return unreadable();
      if (m->hops() > kMaxWireHops) return unreadable();
      // Only a StartEntity carries no message (and an older member's
      // delivery, whose message was in a field this one does not read).
      if (m->message_serializer() == 0 && !m->start()) return unreadable();
      absl::StatusOr<actor::AnyMessage> inner = nested.ReadParts(
          m->message_serializer(), m->message_manifest(), m->message_bytes());
      if (!inner.ok()) return inner.status();
      absl::StatusOr<actor::ActorRef> origin =
          remote::ResolveSerializedActorPath(m->origin());
      if (!origin.ok()) return origin.status();
      return actor::AnyMessage::Of(RoutedDelivery{
          m->shard_id(), m->entity_id(), *std::move(inner), m->start(),
          *std::move(origin), static_cast<int>(m->hops())});
    }
    if (manifest == kShardHome) {
      wire::ShardHome m;
      if (!parse(m)) return unreadable();
      absl::StatusOr<actor::ActorRef> region =
          remote::ResolveSerializedActorPath(m.region());
      if (!region.ok()) return region.status();
      return actor::AnyMessage::Of(ShardHome{m.shard_id(), *std::move(region)});
    }
    if (manifest == kHostShard) {
      wire::HostShard m;
      if (!parse(m)) return unreadable();
      return actor::AnyMessage::Of(HostShard{m.shard_id()});
    }
    if (manifest == kRegionStatus) {
      wire::RegionStatus m;
      if (!parse(m)) return unreadable();
      return actor::AnyMessage::Of(RegionStatus{m.member(), m.hosting()});
    }
    return absl::NotFoundError(
        base::StrCat("sharding has no message with manifest '", manifest, "'"));
  }
};

[[maybe_unused]] const bool kRegistered =
    remote::ModuleSerializers::Add(std::make_shared<ShardingSerializer>());

}  // namespace
}  // namespace cairn::sharding::internal
