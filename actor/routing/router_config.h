#ifndef CAIRN_ACTOR_ROUTING_ROUTER_CONFIG_H_
#define CAIRN_ACTOR_ROUTING_ROUTER_CONFIG_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "actor/actor_ref.h"
#include "actor/props.h"
#include "actor/routing/first_completed.h"
#include "actor/routing/resizer.h"
#include "actor/routing/routing_logic.h"
#include "actor/supervisor_strategy.h"
#include "hocon/config.h"

namespace cairn::actor::routing {

// Makes the logic of one router actor (a logic's state, such as the
// round-robin position, belongs to one router).
using LogicFactory = std::function<std::shared_ptr<RoutingLogic>()>;
// Makes the strategy a pool router supervises its routees with.
using StrategyFactory =
    std::function<std::unique_ptr<actor::SupervisorStrategy>()>;

// What a router actor is made from: a pool (routees are its children, made
// from the routee props) or a group (routees are given by path or ref).
struct RouterSpec {
  bool pool = true;
  int nr_of_instances = 0;         // pools
  std::vector<std::string> paths;  // groups
  std::vector<ActorRef> refs;      // groups
  LogicFactory logic;
  StrategyFactory supervisor_strategy;    // pools; null: the default below
  std::optional<DefaultResizer> resizer;  // pools

  // The settings `logic` was made with, when a factory below made it. A
  // deployment section that overrides this router (see Pool) with a logic
  // that takes one of them keeps it unless the section gives its own (the
  // hash mapping, which no section can give, always), as Akka's
  // withFallback keeps a ConsistentHashingPool's hashMapping.
  HashKeyFunction hash_mapping;             // consistent hashing
  std::optional<int> virtual_nodes_factor;  // consistent hashing
  std::optional<absl::Duration> within;     // scatter-gather, tail-chopping
  std::optional<absl::Duration> interval;   // tail-chopping
  std::optional<uint64_t> seed;             // random, tail-chopping
};

// A pool router: `nr_of_instances` routees made from the routee props as
// the router's children, supervised by it. Akka.NET's shape,
// `RoundRobinPool(5).Props(Props::Create<Worker>())`, rather than Akka's
// `props.WithRouter(...)`: Props belongs to //actor, which cannot know
// routers without the runtime depending on this package.
//
// Supervision: by default the routees are supervised with
// SupervisorStrategy::DefaultStrategy() (restart; stop on initialization
// failure and Kill), as Akka.NET does since 1.4.48. Akka (JVM) escalates
// every failure to the router's parent instead, which restarts the router
// and with it every routee; WithSupervisorStrategy chooses.
//
// When all routees have stopped, the router stops itself (not with a
// resizer, which may bring them back).
//
// Configuration wins over code, as in Akka: when the deployment section of
// the router's path (see FromConfig) names a router, that router is made
// instead, keeping from the code what the section does not say (the
// supervisor strategy, a resizer when the section has none enabled,
// nr-of-instances when it gives none, and the logic's settings of
// RouterSpec: a consistent-hashing pool's hash mapping, ...). A bad
// section fails ActorOf with ConfigurationException.
//
// Size: nr_of_instances routees at the start (with a resizer, brought
// within its bounds; 0 is allowed then, and with lower_bound 0 the pool
// starts empty). AdjustPoolSize (router.h) adds or removes routees later.
// A pool without routees sends what it gets to dead letters
// (scatter-gather and tail-chopping: answers StatusFailure).
class Pool {
 public:
  Pool(int nr_of_instances, LogicFactory logic);
  // A pool of `spec` (spec.pool must be true), with the logic settings the
  // factories below record.
  explicit Pool(RouterSpec spec);
  Pool WithSupervisorStrategy(StrategyFactory strategy) const;
  // Resizes the pool with its load (see resizer.h); nr_of_instances may
  // then be 0 (start at the lower bound). Throws std::invalid_argument
  // when `resizer` is not valid.
  Pool WithResizer(DefaultResizer resizer) const;
  // Props of the router actor. Throws std::invalid_argument if the pool has
  // fewer than one instance (with a resizer: fewer than none).
  actor::Props Props(const actor::Props& routee_props) const;
  const RouterSpec& spec() const { return spec_; }

 private:
  RouterSpec spec_;
};

Pool RoundRobinPool(int nr_of_instances);
Pool RandomPool(int nr_of_instances,
                std::optional<uint64_t> seed = std::nullopt);
Pool BroadcastPool(int nr_of_instances);
// Each message to the routee with the fewest messages waiting (see
// SmallestMailboxRoutingLogic). A pool only, as in Akka.
Pool SmallestMailboxPool(int nr_of_instances);
Pool ConsistentHashingPool(int nr_of_instances,
                           HashKeyFunction hash_key = nullptr,
                           int virtual_nodes_factor = 10);
Pool ScatterGatherFirstCompletedPool(int nr_of_instances,
                                     absl::Duration within);
Pool TailChoppingPool(int nr_of_instances, absl::Duration within,
                      absl::Duration interval,
                      std::optional<uint64_t> seed = std::nullopt);

// A group router: the routees are actors that exist elsewhere, given by
// path (looked up on every send, as Akka's ActorSelection routees) or by
// ref (every group logic takes either). The router does not supervise
// them; it watches the ones given by ref and drops those that stop. It
// does not stop when none are left. A deployment section overrides it as
// it does a Pool (its routees.paths replace the code's routees).
class Group {
 public:
  Group(std::vector<std::string> paths, LogicFactory logic);
  Group(std::vector<ActorRef> refs, LogicFactory logic);
  // A group of `spec` (spec.pool must be false).
  explicit Group(RouterSpec spec);
  actor::Props Props() const;
  const RouterSpec& spec() const { return spec_; }

 private:
  RouterSpec spec_;
};

// Each group by paths or by refs.
Group RoundRobinGroup(std::vector<std::string> paths);
Group RoundRobinGroup(std::vector<ActorRef> refs);
Group RandomGroup(std::vector<std::string> paths,
                  std::optional<uint64_t> seed = std::nullopt);
Group RandomGroup(std::vector<ActorRef> refs,
                  std::optional<uint64_t> seed = std::nullopt);
Group BroadcastGroup(std::vector<std::string> paths);
Group BroadcastGroup(std::vector<ActorRef> refs);
Group ConsistentHashingGroup(std::vector<std::string> paths,
                             HashKeyFunction hash_key = nullptr,
                             int virtual_nodes_factor = 10);
Group ConsistentHashingGroup(std::vector<ActorRef> refs,
                             HashKeyFunction hash_key = nullptr,
                             int virtual_nodes_factor = 10);
Group ScatterGatherFirstCompletedGroup(std::vector<std::string> paths,
                                       absl::Duration within);
Group ScatterGatherFirstCompletedGroup(std::vector<ActorRef> refs,
                                       absl::Duration within);
Group TailChoppingGroup(std::vector<std::string> paths, absl::Duration within,
                        absl::Duration interval,
                        std::optional<uint64_t> seed = std::nullopt);
Group TailChoppingGroup(std::vector<ActorRef> refs, absl::Duration within,
                        absl::Duration interval,
                        std::optional<uint64_t> seed = std::nullopt);

// Akka's FromConfig: the router is read from the configuration section
// `akka.actor.deployment."/parent/name"` for the path the router actor is
// created at (below /user, e.g. ActorOf(..., "workers") at top level reads
// "/workers"):
//
//   akka.actor.deployment {
//     "/workers" { router = round-robin-pool, nr-of-instances = 5 }
//     "/hub" { router = broadcast-group, routees.paths = ["/user/a"] }
//   }
//
// Keys, as Akka's: router (round-robin-, random-, broadcast-,
// consistent-hashing-, scatter-gather-, tail-chopping- + pool/group, and
// smallest-mailbox-pool), nr-of-instances (pools; optional with a resizer,
// which then starts at its lower bound), routees.paths (groups),
// virtual-nodes-factor (consistent hashing, default 10), within
// (scatter-gather and tail-chopping, default 5s),
// tail-chopping-router.interval (default 10ms), and for pools a resizer:
//
//   "/workers" {
//     router = smallest-mailbox-pool
//     resizer { enabled = on, lower-bound = 2, upper-bound = 15 }
//   }
//
// (the keys of DefaultResizer::FromConfig; `enabled = on` is needed, as in
// Akka). Wildcards in deployment paths are not supported. A missing or bad
// section makes ActorOf throw ConfigurationException naming the path and
// the key, as Akka's actorOf does (and as ActorOf does for an unknown
// dispatcher): nothing is made, the name stays free.
//
// The same section also overrides a router made in code at that path (see
// Pool). `router = from-code` (Akka's default) leaves the code's router.
// Props that are not a router stay a plain actor whatever the section says,
// as in Akka.
class FromConfig {
 public:
  // A router whose routees, if the configuration makes it a pool, are made
  // from `routee_props`.
  static actor::Props Props(const actor::Props& routee_props);
  // A router that the configuration must make a group.
  static actor::Props Props();
};

// The router configured for `deployment_path` ("/parent/name") in `config`
// (the system's settings). InvalidArgument naming the section and key when
// the section is missing or bad; a pool without `has_routee_props` is bad.
// `from_code`: the router the code gave, which supplies what the section
// leaves out (see Pool); null for FromConfig.
absl::StatusOr<RouterSpec> RouterSpecFromConfig(
    const hocon::Config& config, std::string_view deployment_path,
    bool has_routee_props, const RouterSpec* from_code = nullptr);

// Whether `config` has a deployment section for `deployment_path` that
// names a router (any `router` but from-code).
bool DeploysRouter(const hocon::Config& config,
                   std::string_view deployment_path);

// The deployment path of the actor at `path`: its elements below the
// first (/user), "/parent/name".
std::string DeploymentPath(const ActorPath& path);

}  // namespace cairn::actor::routing

#endif  // CAIRN_ACTOR_ROUTING_ROUTER_CONFIG_H_
