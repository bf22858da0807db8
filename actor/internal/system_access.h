#ifndef CAIRN_ACTOR_INTERNAL_SYSTEM_ACCESS_H_
#define CAIRN_ACTOR_INTERNAL_SYSTEM_ACCESS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "actor/actor_path.h"
#include "actor/actor_system.h"
#include "actor/future.h"
#include "actor/internal/actor_cell.h"
#include "actor/props.h"

namespace cairn::actor::internal {

class DeadLettersRef;
struct SystemSettings;

// The calls the runtime's own parts (cells, dead letters, ask, selection,
// coordinated shutdown) make on an ActorSystem, kept out of its public
// interface so that users and higher layers see only what they may use.
// Thread safety: as each ActorSystem method (any thread).
class SystemAccess {
 public:
  static const SystemSettings& Settings(const ActorSystem& system) {
    return system.settings();
  }
  static int64_t NewUid(ActorSystem& system) { return system.NewUid(); }
  // The dispatcher configured at `id` ("" = default), made on first use.
  static absl::StatusOr<Dispatcher*> LookupDispatcher(ActorSystem& system,
                                                      const std::string& id) {
    return system.LookupDispatcher(id);
  }
  static absl::StatusOr<MailboxSettings> MakeMailbox(ActorSystem& system,
                                                     const Props& props) {
    return system.MakeMailbox(props);
  }
  static ActorCell* Root(const ActorSystem& system) { return system.root(); }
  static DeadLettersRef* DeadLetters(const ActorSystem& system) {
    return system.dead_letters();
  }
  static bool Terminating(const ActorSystem& system) {
    return system.terminating();
  }
  // Terminates without running coordinated shutdown (its last phase).
  static Future<void> TerminateNow(ActorSystem& system) {
    return system.TerminateNow();
  }
  // Called by the root cell when it has stopped.
  static void OnRootTerminated(ActorSystem& system) {
    system.OnRootTerminated();
  }
  // Paths of short-lived actors (ask): /temp/$n.
  static ActorPath NewTempPath(ActorSystem& system) {
    return system.NewTempPath();
  }
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_SYSTEM_ACCESS_H_
