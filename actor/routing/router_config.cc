#include "actor/routing/router_config.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/messages.h"
#include "actor/routing/router.h"

namespace cairn::actor::routing {
namespace {

// The router to make at `path`: the one its deployment section names if
// it names one (for FromConfig it must), else `code`. The configuration
// wins over the code, as in Akka.
absl::StatusOr<RouterSpec> Deployed(const hocon::Config& settings,
                                    const ActorPath& path,
                                    const RouterSpec& code,
                                    bool has_routee_props, bool from_config) {
  const std::string deployment_path = DeploymentPath(path);
  if (!from_config && !DeploysRouter(settings, deployment_path)) return code;
  return RouterSpecFromConfig(settings, deployment_path, has_routee_props,
                              from_config ? nullptr : &code);
}

// Routing happens here, in an ordinary actor (not on the sender's thread as
// Akka's RoutedActorRef does): the routees and the logic's state change only
// on this actor's thread; the cost is one more mailbox hop per message. A
// SendRoute (actor/send_route.h) could take that hop away, as sharding's
// region does, for the logics whose choice needs no state of the actor's.
class RouterActor final : public Actor {
 public:
  RouterActor(RouterSpec spec, std::optional<actor::Props> routee_props,
              bool from_config)
      : spec_(std::move(spec)) {
    // Smallest-mailbox routing and the resizer read the routees' mailboxes.
    if (routee_props.has_value()) {
      routee_props_ = routee_props->WithMailboxStatus();
    }
    // ActorOf checked the section (RouterProps); a restart reads it again.
    absl::StatusOr<RouterSpec> configured =
        Deployed(Context().System().Settings(), Self().Path(), spec_,
                 routee_props_.has_value(), from_config);
    if (!configured.ok()) {
      throw ConfigurationException(std::string(configured.status().message()));
    }
    spec_ = *std::move(configured);
    Receive<GetRoutees>([this](const GetRoutees&) {
      Sender().Tell(Routees{router_.routees()});
    });
    Receive<AddRoutee>([this](const AddRoutee& m) {
      if (!m.routee.is_selection()) Context().Watch(m.routee.ref());
      router_ = router_.AddRoutee(m.routee);
    });
    Receive<AdjustPoolSize>([this](const AdjustPoolSize& m) {
      // Akka's group routers do not take it either.
      if (!spec_.pool) return Unhandled(AnyMessage::Of(m));
      if (m.change > 0) {
        std::vector<Routee> routees = router_.routees();
        for (int i = 0; i < m.change; ++i) routees.push_back(NewRoutee());
        router_ = router_.WithRoutees(std::move(routees));
      } else if (m.change < 0) {
        // In 64 bits: -INT_MIN does not fit an int.
        RemoveLast(static_cast<size_t>(-static_cast<int64_t>(m.change)),
                   /*graceful=*/false);
        StopIfAllRouteesRemoved();
      }
    });
    Receive<RemoveRoutee>([this](const RemoveRoutee& m) {
      router_ = router_.RemoveRoutee(m.routee);
      if (!m.routee.is_selection()) {
        Context().Unwatch(m.routee.ref());
        if (IsChild(m.routee.ref())) Context().Stop(m.routee.ref());
      }
      StopIfAllRouteesRemoved();
    });
    Receive<Terminated>([this](const Terminated& t) {
      router_ = router_.RemoveRoutee(Routee(t.actor));
      StopIfAllRouteesRemoved();
    });
    ReceiveAny([this](const AnyMessage& message) {
      // Before the message, as Akka's Resize message goes ahead of it.
      if (spec_.resizer.has_value() &&
          spec_.resizer->IsTimeForResize(++routed_)) {
        Resize();
      }
      if (!router_.Route(message, Sender(), &Context())) {
        Context().System().DeadLetters().TellAny(message, Sender());
      }
    });
  }

  void PreStart() override {
    std::vector<Routee> routees;
    if (spec_.pool) {
      int n = spec_.nr_of_instances;
      if (spec_.resizer.has_value()) {
        n = std::clamp(n, spec_.resizer->lower_bound,
                       spec_.resizer->upper_bound);
      }
      for (int i = 0; i < n; ++i) routees.push_back(NewRoutee());
    } else {
      for (const std::string& path : spec_.paths) {
        routees.emplace_back(Context().ActorSelection(path));
      }
      for (const ActorRef& ref : spec_.refs) {
        routees.emplace_back(Context().Watch(ref));
      }
    }
    router_ = Router(spec_.logic(), std::move(routees));
  }

  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    if (spec_.supervisor_strategy) return spec_.supervisor_strategy();
    return SupervisorStrategy::DefaultStrategy();
  }

 private:
  Routee NewRoutee() {
    return Routee(Context().Watch(Context().ActorOf(*routee_props_)));
  }
  bool IsChild(const ActorRef& ref) const {
    return Context().Child(ref.Path().name()) == ref;
  }
  void StopIfAllRouteesRemoved() {
    if (spec_.pool && !spec_.resizer.has_value() && router_.routees().empty()) {
      Context().Stop(Self());
    }
  }
  // Adds or removes routees as the resizer says. Removed children get a
  // PoisonPill rather than a stop, so that what they hold is processed.
  void Resize() {
    const int delta = spec_.resizer->Resize(router_.routees());
    if (delta > 0) {
      std::vector<Routee> routees = router_.routees();
      for (int i = 0; i < delta; ++i) routees.push_back(NewRoutee());
      router_ = router_.WithRoutees(std::move(routees));
    } else if (delta < 0) {
      RemoveLast(static_cast<size_t>(-delta), /*graceful=*/true);
    }
  }
  // Removes the last `n` routees (all, if fewer). Children are stopped:
  // `graceful`, after what they hold (PoisonPill), else after their current
  // message (as RemoveRoutee).
  void RemoveLast(size_t n, bool graceful) {
    std::vector<Routee> routees = router_.routees();
    const size_t keep = routees.size() - std::min(n, routees.size());
    for (size_t i = keep; i < routees.size(); ++i) {
      if (routees[i].is_selection()) continue;
      const ActorRef& ref = routees[i].ref();
      Context().Unwatch(ref);
      if (!IsChild(ref)) continue;
      if (graceful) {
        ref.Tell(PoisonPill{}, Self());
      } else {
        Context().Stop(ref);
      }
    }
    routees.erase(routees.begin() + static_cast<std::ptrdiff_t>(keep),
                  routees.end());
    router_ = router_.WithRoutees(std::move(routees));
  }

  RouterSpec spec_;
  std::optional<actor::Props> routee_props_;
  Router router_{nullptr};
  uint64_t routed_ = 0;  // messages routed, for the resizer
};

actor::Props RouterProps(RouterSpec spec,
                         std::optional<actor::Props> routee_props,
                         bool from_config) {
  // ActorOf runs the check: a bad or (for FromConfig) missing section fails
  // it at once, as in Akka, rather than the router actor later.
  Props::DeploymentCheck check =
      [spec, has_routee_props = routee_props.has_value(), from_config](
          const hocon::Config& settings, const ActorPath& path) {
        return Deployed(settings, path, spec, has_routee_props, from_config)
            .status();
      };
  return actor::Props::Create([spec = std::move(spec),
                               routee_props = std::move(routee_props),
                               from_config]() -> std::unique_ptr<Actor> {
           return std::make_unique<RouterActor>(spec, routee_props,
                                                from_config);
         })
      .AsRouter(std::move(check));
}

template <typename L, typename... Args>
LogicFactory MakeLogic(Args... args) {
  return [args...]() -> std::shared_ptr<RoutingLogic> {
    return std::make_shared<L>(args...);
  };
}

}  // namespace

Pool::Pool(int nr_of_instances, LogicFactory logic) {
  spec_.pool = true;
  spec_.nr_of_instances = nr_of_instances;
  spec_.logic = std::move(logic);
}

Pool::Pool(RouterSpec spec) : spec_(std::move(spec)) { spec_.pool = true; }

Pool Pool::WithSupervisorStrategy(StrategyFactory strategy) const {
  Pool copy = *this;
  copy.spec_.supervisor_strategy = std::move(strategy);
  return copy;
}

Pool Pool::WithResizer(DefaultResizer resizer) const {
  if (absl::Status valid = resizer.Validate(); !valid.ok()) {
    throw std::invalid_argument(std::string(valid.message()));
  }
  Pool copy = *this;
  copy.spec_.resizer = resizer;
  return copy;
}

actor::Props Pool::Props(const actor::Props& routee_props) const {
  if (spec_.nr_of_instances < (spec_.resizer.has_value() ? 0 : 1)) {
    throw std::invalid_argument(
        absl::StrCat("a pool router needs at least one instance, got ",
                     spec_.nr_of_instances));
  }
  return RouterProps(spec_, routee_props, /*from_config=*/false);
}

namespace {

// A spec of a logic and the settings it was made with (see RouterSpec),
// for the factories and the deployment sections alike.
RouterSpec RoundRobinLogic() {
  RouterSpec spec;
  spec.logic = MakeLogic<RoundRobinRoutingLogic>();
  return spec;
}
RouterSpec RandomLogic(std::optional<uint64_t> seed) {
  RouterSpec spec;
  spec.logic = MakeLogic<RandomRoutingLogic>(seed);
  spec.seed = seed;
  return spec;
}
RouterSpec BroadcastLogic() {
  RouterSpec spec;
  spec.logic = MakeLogic<BroadcastRoutingLogic>();
  return spec;
}
RouterSpec SmallestMailboxLogic() {
  RouterSpec spec;
  spec.logic = MakeLogic<SmallestMailboxRoutingLogic>();
  return spec;
}
RouterSpec ConsistentHashingLogic(HashKeyFunction hash_key,
                                  int virtual_nodes_factor) {
  RouterSpec spec;
  spec.logic =
      MakeLogic<ConsistentHashingRoutingLogic>(hash_key, virtual_nodes_factor);
  spec.hash_mapping = std::move(hash_key);
  spec.virtual_nodes_factor = virtual_nodes_factor;
  return spec;
}
RouterSpec ScatterGatherLogic(absl::Duration within) {
  RouterSpec spec;
  spec.logic = MakeLogic<ScatterGatherFirstCompletedRoutingLogic>(within);
  spec.within = within;
  return spec;
}
RouterSpec TailChoppingLogic(absl::Duration within, absl::Duration interval,
                             std::optional<uint64_t> seed) {
  RouterSpec spec;
  spec.logic = MakeLogic<TailChoppingRoutingLogic>(within, interval, seed);
  spec.within = within;
  spec.interval = interval;
  spec.seed = seed;
  return spec;
}

Pool AsPool(RouterSpec spec, int nr_of_instances) {
  spec.nr_of_instances = nr_of_instances;
  return Pool(std::move(spec));
}
Group AsGroup(RouterSpec spec, std::vector<std::string> paths) {
  spec.paths = std::move(paths);
  return Group(std::move(spec));
}
Group AsGroup(RouterSpec spec, std::vector<ActorRef> refs) {
  spec.refs = std::move(refs);
  return Group(std::move(spec));
}

}  // namespace

Pool RoundRobinPool(int n) { return AsPool(RoundRobinLogic(), n); }
Pool RandomPool(int n, std::optional<uint64_t> seed) {
  return AsPool(RandomLogic(seed), n);
}
Pool BroadcastPool(int n) { return AsPool(BroadcastLogic(), n); }
Pool SmallestMailboxPool(int n) { return AsPool(SmallestMailboxLogic(), n); }
Pool ConsistentHashingPool(int n, HashKeyFunction hash_key,
                           int virtual_nodes_factor) {
  return AsPool(
      ConsistentHashingLogic(std::move(hash_key), virtual_nodes_factor), n);
}
Pool ScatterGatherFirstCompletedPool(int n, absl::Duration within) {
  return AsPool(ScatterGatherLogic(within), n);
}
Pool TailChoppingPool(int n, absl::Duration within, absl::Duration interval,
                      std::optional<uint64_t> seed) {
  return AsPool(TailChoppingLogic(within, interval, seed), n);
}

Group::Group(std::vector<std::string> paths, LogicFactory logic) {
  spec_.pool = false;
  spec_.paths = std::move(paths);
  spec_.logic = std::move(logic);
}

Group::Group(std::vector<ActorRef> refs, LogicFactory logic) {
  spec_.pool = false;
  spec_.refs = std::move(refs);
  spec_.logic = std::move(logic);
}

Group::Group(RouterSpec spec) : spec_(std::move(spec)) { spec_.pool = false; }

actor::Props Group::Props() const {
  return RouterProps(spec_, std::nullopt, /*from_config=*/false);
}

Group RoundRobinGroup(std::vector<std::string> paths) {
  return AsGroup(RoundRobinLogic(), std::move(paths));
}
Group RoundRobinGroup(std::vector<ActorRef> refs) {
  return AsGroup(RoundRobinLogic(), std::move(refs));
}
Group RandomGroup(std::vector<std::string> paths,
                  std::optional<uint64_t> seed) {
  return AsGroup(RandomLogic(seed), std::move(paths));
}
Group RandomGroup(std::vector<ActorRef> refs, std::optional<uint64_t> seed) {
  return AsGroup(RandomLogic(seed), std::move(refs));
}
Group BroadcastGroup(std::vector<std::string> paths) {
  return AsGroup(BroadcastLogic(), std::move(paths));
}
Group BroadcastGroup(std::vector<ActorRef> refs) {
  return AsGroup(BroadcastLogic(), std::move(refs));
}
Group ConsistentHashingGroup(std::vector<std::string> paths,
                             HashKeyFunction hash_key,
                             int virtual_nodes_factor) {
  return AsGroup(
      ConsistentHashingLogic(std::move(hash_key), virtual_nodes_factor),
      std::move(paths));
}
Group ConsistentHashingGroup(std::vector<ActorRef> refs,
                             HashKeyFunction hash_key,
                             int virtual_nodes_factor) {
  return AsGroup(
      ConsistentHashingLogic(std::move(hash_key), virtual_nodes_factor),
      std::move(refs));
}
Group ScatterGatherFirstCompletedGroup(std::vector<std::string> paths,
                                       absl::Duration within) {
  return AsGroup(ScatterGatherLogic(within), std::move(paths));
}
Group ScatterGatherFirstCompletedGroup(std::vector<ActorRef> refs,
                                       absl::Duration within) {
  return AsGroup(ScatterGatherLogic(within), std::move(refs));
}
Group TailChoppingGroup(std::vector<std::string> paths, absl::Duration within,
                        absl::Duration interval, std::optional<uint64_t> seed) {
  return AsGroup(TailChoppingLogic(within, interval, seed), std::move(paths));
}
Group TailChoppingGroup(std::vector<ActorRef> refs, absl::Duration within,
                        absl::Duration interval, std::optional<uint64_t> seed) {
  return AsGroup(TailChoppingLogic(within, interval, seed), std::move(refs));
}

actor::Props FromConfig::Props(const actor::Props& routee_props) {
  return RouterProps(RouterSpec(), routee_props, /*from_config=*/true);
}

actor::Props FromConfig::Props() {
  return RouterProps(RouterSpec(), std::nullopt, /*from_config=*/true);
}

namespace {

std::string DeploymentSection(std::string_view deployment_path) {
  return absl::StrCat("akka.actor.deployment.\"", std::string(deployment_path),
                      "\"");
}

}  // namespace

std::string DeploymentPath(const ActorPath& path) {
  const std::vector<std::string>& elements = path.elements();
  std::string deployment_path;
  // Relative to /user, as in Akka.
  for (size_t i = 1; i < elements.size(); ++i) {
    absl::StrAppend(&deployment_path, "/", elements[i]);
  }
  return deployment_path;
}

bool DeploysRouter(const hocon::Config& config,
                   std::string_view deployment_path) {
  const std::string key =
      absl::StrCat(DeploymentSection(deployment_path), ".router");
  if (!config.HasPath(key)) return false;
  absl::StatusOr<std::string> router = config.GetString(key);
  // A bad value is a router section for RouterSpecFromConfig to reject.
  return !router.ok() || *router != "from-code";
}

absl::StatusOr<RouterSpec> RouterSpecFromConfig(
    const hocon::Config& config, std::string_view deployment_path,
    bool has_routee_props, const RouterSpec* from_code) {
  const std::string path(deployment_path);
  const std::string section = DeploymentSection(path);
  auto bad = [&](const std::string& key, const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat(section, ".", key, ": ", what));
  };
  if (!config.HasPath(section)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "router configuration missing for ", path, ": no section ", section));
  }
  absl::StatusOr<hocon::Config> deployment = config.GetConfig(section);
  if (!deployment.ok())
    return bad("", std::string(deployment.status().message()));

  absl::StatusOr<std::string> router = deployment->GetString("router");
  if (!router.ok())
    return bad("router", std::string(router.status().message()));
  bool pool;
  std::string logic_name;
  if (router->ends_with("-pool")) {
    pool = true;
    logic_name = router->substr(0, router->size() - 5);
  } else if (router->ends_with("-group")) {
    pool = false;
    logic_name = router->substr(0, router->size() - 6);
  } else {
    return bad("router", absl::StrCat("unknown router \"", *router,
                                      "\" (expected <logic>-pool or "
                                      "<logic>-group)"));
  }
  // What the code gave, for what the section does not say (see RouterSpec).
  const RouterSpec code = from_code != nullptr ? *from_code : RouterSpec();
  RouterSpec spec;
  if (logic_name == "round-robin") {
    spec = RoundRobinLogic();
  } else if (logic_name == "random") {
    spec = RandomLogic(code.seed);
  } else if (logic_name == "broadcast") {
    spec = BroadcastLogic();
  } else if (logic_name == "smallest-mailbox") {
    if (!pool) {
      return bad("router",
                 "smallest-mailbox is a pool only (as in Akka): use "
                 "smallest-mailbox-pool");
    }
    spec = SmallestMailboxLogic();
  } else if (logic_name == "consistent-hashing") {
    absl::StatusOr<int> factor = deployment->GetIntOr(
        "virtual-nodes-factor", code.virtual_nodes_factor.value_or(10));
    if (!factor.ok()) {
      return bad("virtual-nodes-factor",
                 std::string(factor.status().message()));
    }
    if (*factor < 1) return bad("virtual-nodes-factor", "must be at least 1");
    spec = ConsistentHashingLogic(code.hash_mapping, *factor);
  } else if (logic_name == "scatter-gather" || logic_name == "tail-chopping") {
    absl::StatusOr<absl::Duration> within = deployment->GetDurationOr(
        "within", code.within.value_or(absl::Seconds(5)));
    if (!within.ok())
      return bad("within", std::string(within.status().message()));
    if (*within <= absl::ZeroDuration())
      return bad("within", "must be positive");
    if (logic_name == "scatter-gather") {
      spec = ScatterGatherLogic(*within);
    } else {
      absl::StatusOr<absl::Duration> interval = deployment->GetDurationOr(
          "tail-chopping-router.interval",
          code.interval.value_or(absl::Milliseconds(10)));
      if (!interval.ok()) {
        return bad("tail-chopping-router.interval",
                   std::string(interval.status().message()));
      }
      if (*interval <= absl::ZeroDuration()) {
        return bad("tail-chopping-router.interval", "must be positive");
      }
      spec = TailChoppingLogic(*within, *interval, code.seed);
    }
  } else {
    return bad("router",
               absl::StrCat("unknown routing logic in \"", *router,
                            "\" (known: round-robin, random, broadcast, "
                            "smallest-mailbox, consistent-hashing, "
                            "scatter-gather, tail-chopping)"));
  }
  spec.pool = pool;

  const bool code_pool = from_code != nullptr && from_code->pool;
  if (spec.pool) {
    absl::StatusOr<std::optional<DefaultResizer>> resizer =
        DefaultResizer::FromConfig(*deployment);
    if (!resizer.ok()) {
      return bad("resizer", std::string(resizer.status().message()));
    }
    spec.resizer = *resizer;
    if (!spec.resizer.has_value() && code_pool) {
      spec.resizer = from_code->resizer;
    }
    if (deployment->HasPath("nr-of-instances") ||
        (!spec.resizer.has_value() && !code_pool)) {
      absl::StatusOr<int> n = deployment->GetInt("nr-of-instances");
      if (!n.ok())
        return bad("nr-of-instances", std::string(n.status().message()));
      if (*n < (spec.resizer.has_value() ? 0 : 1)) {
        return bad("nr-of-instances", spec.resizer.has_value()
                                          ? "must be at least 0"
                                          : "must be at least 1");
      }
      spec.nr_of_instances = *n;
    } else if (code_pool) {
      spec.nr_of_instances = from_code->nr_of_instances;
    } else {
      spec.nr_of_instances = spec.resizer->lower_bound;
    }
    if (!has_routee_props) {
      return bad("router",
                 "a pool needs routee props: FromConfig::Props(routee_props)");
    }
    if (from_code != nullptr) {
      spec.supervisor_strategy = from_code->supervisor_strategy;
    }
  } else {
    absl::StatusOr<std::vector<std::string>> paths =
        deployment->GetStringList("routees.paths");
    if (!paths.ok())
      return bad("routees.paths", std::string(paths.status().message()));
    if (paths->empty()) return bad("routees.paths", "a group needs paths");
    spec.paths = *std::move(paths);
  }
  return spec;
}

}  // namespace cairn::actor::routing
