#ifndef CAIRN_REMOTE_REMOTE_SETUP_H_
#define CAIRN_REMOTE_REMOTE_SETUP_H_

#include <memory>

#include "serialization/serialization.h"

namespace cairn::remote {

// What remoting takes from the application in code rather than config
// (actor/actor_system_setup.h):
//
//   ActorSystemOptions options;
//   options.setup = ActorSystemSetup().With(remote::RemoteSetup{registry});
//
// Without one, a system sends std::string and protobuf messages (and the
// runtime's own: Identify, ActorIdentity, PoisonPill, Kill,
// StatusFailure), and nothing else.
struct RemoteSetup {
  // How messages become bytes and back, usually the registry persistence
  // uses too. Set up before the system is created; shared, read from any
  // thread.
  std::shared_ptr<const serialization::SerializationRegistry> serialization;
};

}  // namespace cairn::remote

#endif  // CAIRN_REMOTE_REMOTE_SETUP_H_
