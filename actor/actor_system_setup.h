#ifndef CAIRN_ACTOR_ACTOR_SYSTEM_SETUP_H_
#define CAIRN_ACTOR_ACTOR_SYSTEM_SETUP_H_

#include <memory>
#include <typeindex>
#include <utility>
#include <vector>

namespace cairn::actor {

// Typed settings an application gives an actor system in code, for what a
// config file cannot name (Akka's ActorSystemSetup): a serialization
// registry, credentials held in memory. Each package that reads one
// defines its type (e.g. remote::RemoteSetup) and looks it up with Get.
//
//   ActorSystemOptions options;
//   options.setup = ActorSystemSetup().With(remote::RemoteSetup{...});
//
// A value type; copies share the setups, which are immutable. Thread
// safety: const methods from any thread.
class ActorSystemSetup {
 public:
  // A copy with `setup` added, replacing one of the same type.
  template <typename T>
  ActorSystemSetup With(T setup) const {
    ActorSystemSetup copy = *this;
    std::shared_ptr<const void> value =
        std::make_shared<const T>(std::move(setup));
    for (auto& [type, held] : copy.setups_) {
      if (type == typeid(T)) {
        held = std::move(value);
        return copy;
      }
    }
    copy.setups_.emplace_back(typeid(T), std::move(value));
    return copy;
  }

  // The setup of type T, or nullptr if none was given. Valid while this
  // object (or a copy of it) is.
  template <typename T>
  const T* Get() const {
    for (const auto& [type, held] : setups_) {
      if (type == typeid(T)) return static_cast<const T*>(held.get());
    }
    return nullptr;
  }

 private:
  std::vector<std::pair<std::type_index, std::shared_ptr<const void>>> setups_;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ACTOR_SYSTEM_SETUP_H_
