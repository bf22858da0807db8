#ifndef CAIRN_ACTOR_PROPS_H_
#define CAIRN_ACTOR_PROPS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "absl/status/status.h"
#include "actor/actor_path.h"
#include "actor/any_message.h"
#include "actor/send_route.h"
#include "hocon/config.h"

namespace cairn::actor {

class Actor;

// Orders an unbounded priority mailbox: lower values are processed first;
// equal values in arrival order.
using PriorityFunction = std::function<int(const AnyMessage&)>;

// The recipe for an actor: how to make an instance (again, on every restart)
// and where it runs. Immutable and cheap to copy.
class Props {
 public:
  using Factory = std::function<std::unique_ptr<Actor>()>;

  Props(const Props& other) noexcept : data_(other.data_) { data_->AddRef(); }
  Props(Props&& other) noexcept : data_(std::exchange(other.data_, nullptr)) {}
  Props& operator=(Props other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  ~Props() {
    if (data_ != nullptr) data_->Release();
  }

  // Constructs T(args...) with copies of `args`, on start and every restart.
  template <typename T, typename... Args>
  static Props Create(Args... args) {
    static_assert(std::is_base_of_v<Actor, T>, "T must derive from Actor");
    return Props(
        [args...]() -> std::unique_ptr<Actor> {
          return std::make_unique<T>(args...);
        },
        typeid(T));
  }
  // An actor made by `factory` (called on start and every restart).
  static Props Create(Factory factory);

  // The mailbox configured at `config_path` (e.g. "my-bounded-mailbox", a
  // section with mailbox-type, mailbox-capacity, ...). Default:
  // akka.actor.default-mailbox.
  Props WithMailbox(std::string config_path) const;
  // An unbounded mailbox ordered by `priority`.
  Props WithPriorityMailbox(PriorityFunction priority) const;
  // The dispatcher configured at `config_path` (e.g.
  // "akka.actor.pinned-dispatcher"). Default: akka.actor.default-dispatcher.
  Props WithDispatcher(std::string config_path) const;

  const std::string& mailbox() const { return deployed().mailbox; }
  const PriorityFunction& priority() const { return deployed().priority; }
  const std::string& dispatcher() const { return deployed().dispatcher; }
  const std::type_info& actor_type() const { return *data_->type; }

  // Whether the deployment configuration suits an actor about to be made
  // at `path`: `settings` are the system's. Called by ActorOf, on its
  // thread, before it makes anything; an error makes ActorOf throw
  // ConfigurationException with the error's message, as Akka's actorOf
  // throws for a bad deployment.
  using DeploymentCheck = std::function<absl::Status(
      const hocon::Config& settings, const ActorPath& path)>;

  // Marks the props of a router actor (actor/routing does), with the check
  // of its deployment section (null: none). The runtime knows nothing else
  // of routers; with akka.actor.debug.router-misconfiguration on, it warns
  // when props without the mark are created at a path that
  // akka.actor.deployment makes a router.
  Props AsRouter(DeploymentCheck check = nullptr) const;
  bool is_router() const { return deployed().router; }
  const DeploymentCheck& deployment_check() const {
    return deployed().deployment_check;
  }

  // The actor's mailbox counts what it holds, for LocalMailboxStatus
  // (mailbox_status.h): one atomic increment per message sent to it. Off by
  // default, so that sends to other actors pay nothing; pool routers turn
  // it on for their routees (smallest-mailbox routing and the resizer read
  // it).
  Props WithMailboxStatus() const;
  bool has_mailbox_status() const { return deployed().mailbox_status; }

  // Tells to the actor take `route` first, on the senders' threads
  // (send_route.h). Actors made from these Props share the route. Null:
  // none (the default).
  Props WithSendRoute(std::shared_ptr<SendRoute> route) const;
  const std::shared_ptr<SendRoute>& send_route() const {
    return deployed().send_route;
  }

  // Makes a new instance. Exceptions from the constructor propagate.
  std::unique_ptr<Actor> NewActor() const;

 private:
  // What most props never set: the defaults (Deployed()'s) unless one of
  // the With* calls made them. Apart from Data, so that an actor made
  // with plain props (one per entity, often) pays 64 bytes for them, not
  // 200.
  struct Deployment {
    std::string mailbox;
    std::string dispatcher;
    PriorityFunction priority;
    DeploymentCheck deployment_check;
    std::shared_ptr<SendRoute> send_route;
    bool router = false;
    bool mailbox_status = false;
  };
  // Shared by every copy, with an intrusive count: each actor keeps its
  // Props, and one pointer is half the size of a shared_ptr.
  struct Data {
    Factory factory;
    const std::type_info* type;
    std::shared_ptr<const Deployment> deployment;  // null: the defaults
    mutable std::atomic<int32_t> refs{1};

    void AddRef() const { refs.fetch_add(1, std::memory_order_relaxed); }
    void Release() const {
      if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
    }
  };

  const Deployment& deployed() const;
  // A copy of these props whose deployment `change` changed.
  template <typename F>
  Props WithDeployment(F change) const;

  Props(Factory factory, const std::type_info& type);
  // Takes the reference `data` was made with.
  explicit Props(const Data* data) : data_(data) {}
  // A copy of this Props' data to change, with a reference for a new Props.
  const Data* data_;  // never null, except in a moved-from Props
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_PROPS_H_
