#ifndef CAIRN_ACTOR_INTERNAL_ACTOR_REF_IMPL_H_
#define CAIRN_ACTOR_INTERNAL_ACTOR_REF_IMPL_H_

#include <atomic>
#include <cstdint>

#include "actor/actor_path.h"

namespace cairn::actor {
class ActorSystem;
}

namespace cairn::actor::internal {

struct SystemMessage;
class ActorCell;
class Envelope;

// What an ActorRef points at: a local actor, dead letters, an ask's
// temporary reply target. Reference-counted; destroyed with the last ref.
//
// Thread safety: Deliver, SendSystem, Path and IsTerminated from any thread.
class ActorRefImpl {
 public:
  ActorRefImpl(const ActorRefImpl&) = delete;
  ActorRefImpl& operator=(const ActorRefImpl&) = delete;

  void AddRef() const noexcept {
    refs_.fetch_add(1, std::memory_order_relaxed);
  }
  void Release() const noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Adds a reference unless the last one is gone (the impl is being
  // destroyed): what a lookup in a weak index (RefIndex) uses.
  bool TryAddRef() const noexcept {
    int32_t n = refs_.load(std::memory_order_relaxed);
    while (n > 0) {
      if (refs_.compare_exchange_weak(n, n + 1, std::memory_order_acq_rel)) {
        return true;
      }
    }
    return false;
  }

  // Takes ownership of `envelope` (a user message).
  virtual void Deliver(Envelope* envelope) = 0;
  // Takes ownership of `message`. Targets that are not actors drop it, except
  // that a Watch is answered at once with a DeathWatchNotification.
  virtual void SendSystem(SystemMessage* message);
  virtual ActorPath Path() const = 0;
  virtual bool IsTerminated() const = 0;
  // The actor system this ref belongs to.
  virtual ActorSystem* GetSystem() const = 0;
  // The cell when this is a local actor, else nullptr.
  virtual ActorCell* AsCell() { return nullptr; }

 protected:
  ActorRefImpl() = default;
  virtual ~ActorRefImpl() = default;

 private:
  mutable std::atomic<int32_t> refs_{0};
};

// The actor whose message the calling thread is processing (nullptr when it
// processes none): the implicit sender of Tell, as in Akka.NET.
ActorRefImpl* CurrentSelf();
void SetCurrentSelf(ActorRefImpl* self);
// Actor::SenderOverride's steps: CurrentSender() answers `sender` until
// RestoreSender puts back what OverrideSender saved.
void OverrideSender(ActorRefImpl* sender, ActorRefImpl** previous,
                    bool* previous_set);
void RestoreSender(ActorRefImpl* previous, bool previous_set);

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ACTOR_REF_IMPL_H_
