#ifndef CAIRN_ACTOR_INTERNAL_DEAD_LETTERS_H_
#define CAIRN_ACTOR_INTERNAL_DEAD_LETTERS_H_

#include <atomic>

#include "actor/actor_ref.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/envelope.h"

namespace cairn::actor::internal {

// /deadLetters: publishes every message it gets as a DeadLetter on the
// event stream, and logs the first akka.log-dead-letters of them.
class DeadLettersRef final : public ActorRefImpl {
 public:
  explicit DeadLettersRef(ActorSystem* system) : system_(system) {}

  // A message sent to /deadLetters itself.
  void Deliver(Envelope* envelope) override;
  // A message `recipient` could not take. Takes ownership of `envelope`.
  void DeadLetterFrom(Envelope* envelope, ActorRefImpl* recipient);

  ActorPath Path() const override;
  bool IsTerminated() const override { return false; }
  ActorSystem* GetSystem() const override { return system_; }

 private:
  ActorSystem* const system_;
  std::atomic<int64_t> logged_{0};
};

// A path that names no actor here (Akka's EmptyLocalActorRef): messages
// to it are dead letters naming it as the recipient, and a Watch is
// answered at once with a notification naming it (existence not
// confirmed), so a watcher in another system, which knows the actor by
// this path, gets its Terminated.
class EmptyLocalRef final : public ActorRefImpl {
 public:
  EmptyLocalRef(ActorSystem* system, ActorPath path);

  void Deliver(Envelope* envelope) override;
  ActorPath Path() const override { return path_; }
  bool IsTerminated() const override { return true; }
  ActorSystem* GetSystem() const override { return system_; }

 private:
  ActorSystem* const system_;
  const ActorPath path_;
  // Kept: the ref may outlive the system.
  const ActorRef dead_letters_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_DEAD_LETTERS_H_
