#ifndef CAIRN_ACTOR_ROUTING_ROUTING_LOGIC_H_
#define CAIRN_ACTOR_ROUTING_ROUTING_LOGIC_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "actor/actor_context.h"
#include "actor/actor_ref.h"
#include "actor/any_message.h"
#include "actor/routing/hash_key.h"
#include "actor/routing/routee.h"
#include "base/mutex.h"

namespace cairn::actor::routing {

// Picks the routees of one message, as Akka's RoutingLogic.
//
// Thread safety: a router calls its logic from the router actor only, but a
// logic may be shared by several Router values: implementations lock or
// use atomics for their state.
class RoutingLogic {
 public:
  virtual ~RoutingLogic() = default;

  // Indices into `routees` (never empty) of the routees that get `message`.
  // An empty result sends the message to dead letters.
  virtual std::vector<size_t> Select(const AnyMessage& message,
                                     const std::vector<Routee>& routees) = 0;

  // Sends `message` to what Select picks, keeping `sender`; false when it
  // sent nothing (the router then sends it to dead letters). `routees` is
  // never empty. `context` is the router actor's (null for a Router used
  // outside one). Logics that need more than one send per message
  // (scatter-gather, tail-chopping) override it.
  virtual bool Route(const AnyMessage& message, const ActorRef& sender,
                     const std::vector<Routee>& routees, ActorContext* context);

  // For a message that comes while there are no routees: false (the
  // default) sends it to dead letters; a logic may answer the sender
  // instead and return true (scatter-gather and tail-chopping fail it at
  // once, as in Akka).
  virtual bool RouteWithoutRoutees(const AnyMessage& message,
                                   const ActorRef& sender,
                                   ActorContext* context) {
    return false;
  }
};

// A logic that sends each message to one routee at most. Route sends
// without building the vector Select returns: the common router's path
// makes no allocation of its own besides the routee's envelope.
class SingleRouteeLogic : public RoutingLogic {
 public:
  // The index into `routees` (never empty) of the routee for `message`;
  // nullopt sends it to dead letters.
  virtual std::optional<size_t> SelectOne(
      const AnyMessage& message, const std::vector<Routee>& routees) = 0;

  std::vector<size_t> Select(const AnyMessage& message,
                             const std::vector<Routee>& routees) final;
  bool Route(const AnyMessage& message, const ActorRef& sender,
             const std::vector<Routee>& routees,
             ActorContext* context) override;
};

// Each message to the next routee in turn.
class RoundRobinRoutingLogic final : public SingleRouteeLogic {
 public:
  std::optional<size_t> SelectOne(const AnyMessage& message,
                                  const std::vector<Routee>& routees) override;

 private:
  std::atomic<uint64_t> next_{0};
};

// Each message to a routee drawn uniformly at random. The seed is the seam
// for tests (same seed, same choices); without one it comes from
// std::random_device.
class RandomRoutingLogic final : public SingleRouteeLogic {
 public:
  explicit RandomRoutingLogic(std::optional<uint64_t> seed = std::nullopt);
  std::optional<size_t> SelectOne(const AnyMessage& message,
                                  const std::vector<Routee>& routees) override;

 private:
  base::Mutex mu_;
  std::mt19937_64 random_ ABSL_GUARDED_BY(mu_);
};

// Each message to the routee with the fewest messages waiting, as Akka's
// SmallestMailboxRoutingLogic; meant for pools (Akka has no such group).
// From best to worst, the first routee of the best kind wins:
//   1. an idle actor with an empty mailbox (taken at once);
//   2. a local actor whose mailbox is seen (actor/mailbox_status.h): fewer
//      queued messages first, a running or scheduled mailbox counting one
//      more (so an idle routee beats a busy one with as many queued);
//   3. a routee whose mailbox cannot be seen (given by path, or not a
//      living local actor), as Akka ranks remote routees below local ones.
// Reading a mailbox costs two atomic loads per routee, so each message
// costs O(routees); Akka stops at the first idle routee too. Stateless:
// ties always go to the routee listed first. A routee that is suspended
// (failed, waiting for its supervisor) with an empty mailbox looks idle
// (Akka ranks it last); its supervisor, the router, decides before it
// routes its next message.
class SmallestMailboxRoutingLogic final : public SingleRouteeLogic {
 public:
  std::optional<size_t> SelectOne(const AnyMessage& message,
                                  const std::vector<Routee>& routees) override;
};

// Every message to every routee.
class BroadcastRoutingLogic final : public RoutingLogic {
 public:
  std::vector<size_t> Select(const AnyMessage& message,
                             const std::vector<Routee>& routees) override;
};

// Keys are of any type: text, integers, or any type absl::Hash or
// std::hash takes (see hash_key.h for which of them map alike in every
// process).

// A message that names its own consistent-hashing key (Akka's
// ConsistentHashable): derive from it publicly. The override returns
// HashKey (a std::string, an int, ... converts to it).
class ConsistentHashable {
 public:
  virtual ~ConsistentHashable() = default;
  virtual HashKey ConsistentHashKey() const = 0;
};

// Sent to a consistent-hashing router: `message` goes, unwrapped, to the
// routee of `hash_key` (Akka's ConsistentHashableEnvelope), e.g.
// `ConsistentHashableEnvelope{AnyMessage::Of(order), order.customer_id}`.
struct ConsistentHashableEnvelope {
  AnyMessage message;
  HashKey hash_key;
};

// The key of a message for ConsistentHashingRoutingLogic; nullopt when the
// function does not know the message (Akka's hashMapping). A function that
// returns std::optional<std::string> (or of another key type) converts.
using HashKeyFunction =
    std::function<std::optional<HashKey>(const AnyMessage&)>;

// Messages with the same key go to the same routee while the routees stay
// the same; when one is added or removed, only the keys near it on the ring
// move (each routee stands at `virtual_nodes_factor` points of a hash ring).
// The key is an envelope's, else the hash-key function's, else the
// message's ConsistentHashKey(); a message with none goes to dead letters
// (Akka logs it as a warning).
class ConsistentHashingRoutingLogic final : public SingleRouteeLogic {
 public:
  explicit ConsistentHashingRoutingLogic(HashKeyFunction hash_key = nullptr,
                                         int virtual_nodes_factor = 10);
  std::optional<size_t> SelectOne(const AnyMessage& message,
                                  const std::vector<Routee>& routees) override;
  // Unwraps a ConsistentHashableEnvelope.
  bool Route(const AnyMessage& message, const ActorRef& sender,
             const std::vector<Routee>& routees,
             ActorContext* context) override;

  // The stable 64-bit hash the ring uses for text (FNV-1a and a mix), the
  // same in every build: HashKey::StableHash.
  static uint64_t Hash(std::string_view text) {
    return HashKey::StableHash(text);
  }

 private:
  const HashKeyFunction hash_key_;
  const int virtual_nodes_factor_;
  base::Mutex mu_;
  // The ring of the routees last seen (rebuilt when they change): hash ->
  // index into `ring_routees_`.
  std::vector<Routee> ring_routees_ ABSL_GUARDED_BY(mu_);
  std::map<uint64_t, size_t> ring_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::actor::routing

#endif  // CAIRN_ACTOR_ROUTING_ROUTING_LOGIC_H_
