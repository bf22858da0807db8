#ifndef CAIRN_ACTOR_INTERNAL_SYSTEM_MESSAGE_H_
#define CAIRN_ACTOR_INTERNAL_SYSTEM_MESSAGE_H_

#include <cstdint>
#include <exception>

#include "actor/actor_ref.h"
#include "actor/internal/envelope.h"

namespace cairn::actor::internal {

// Lifecycle and supervision traffic. These have their own queue in every
// mailbox and are processed before user messages; they are not ordered with
// user messages.
enum class SystemMessageKind {
  kCreate,     // run the constructor and PreStart
  kSuspend,    // stop processing user messages (counted, recursive)
  kResume,     // undo one Suspend; `cause` set when ending a failure
  kRecreate,   // restart after a failure; `cause` is the failure
  kTerminate,  // stop: children first, then PostStop
  kWatch,      // `ref` wants Terminated when the receiver stops
  kUnwatch,    // `ref` no longer does
  kFailed,     // child `ref` (incarnation `uid`) failed with `cause`
  kDeathWatchNotification,  // `ref` stopped (to watchers and the parent)
  kControl,  // `envelope`, a control message: ahead of the user messages
};

struct SystemMessage {
  SystemMessage(SystemMessageKind k, ActorRef r = ActorRef(),
                std::exception_ptr c = nullptr)
      : kind(k), ref(std::move(r)), cause(std::move(c)) {}
  SystemMessage(const SystemMessage&) = delete;
  SystemMessage& operator=(const SystemMessage&) = delete;
  ~SystemMessage() {
    if (envelope != nullptr) envelope->Dispose();
  }

  SystemMessage* next = nullptr;  // intrusive link of the system queue
  SystemMessageKind kind;
  ActorRef ref;
  std::exception_ptr cause;
  int64_t uid = 0;
  bool existence_confirmed = true;
  bool address_terminated = false;
  Envelope* envelope = nullptr;  // kControl's message, owned until taken
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_SYSTEM_MESSAGE_H_
