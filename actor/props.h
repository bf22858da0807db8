#ifndef CAIRN_ACTOR_PROPS_H_
#define CAIRN_ACTOR_PROPS_H_

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "actor/any_message.h"

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

  const std::string& mailbox() const { return data_->mailbox; }
  const PriorityFunction& priority() const { return data_->priority; }
  const std::string& dispatcher() const { return data_->dispatcher; }
  const std::type_info& actor_type() const { return *data_->type; }

  // Makes a new instance. Exceptions from the constructor propagate.
  std::unique_ptr<Actor> NewActor() const;

 private:
  struct Data {
    Factory factory;
    const std::type_info* type;
    std::string mailbox;
    std::string dispatcher;
    PriorityFunction priority;
  };

  Props(Factory factory, const std::type_info& type);
  explicit Props(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

  std::shared_ptr<const Data> data_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_PROPS_H_
