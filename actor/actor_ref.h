#ifndef CAIRN_ACTOR_ACTOR_REF_H_
#define CAIRN_ACTOR_ACTOR_REF_H_

#include <cstddef>
#include <functional>
#include <ostream>
#include <type_traits>
#include <utility>

#include "actor/actor_path.h"
#include "actor/any_message.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/envelope.h"

namespace cairn::actor {

// A handle to an actor: cheap to copy (one pointer and a reference count),
// comparable and hashable. It stays valid after the actor stops; messages to
// a stopped actor go to dead letters. A default-constructed ActorRef is
// NoSender (also called Nobody): telling it does nothing.
//
// Thread safety: every method may be called from any thread.
class ActorRef {
 public:
  ActorRef() = default;
  static ActorRef NoSender() { return ActorRef(); }

  // Shares `impl` (adds a reference); nullptr gives NoSender.
  explicit ActorRef(internal::ActorRefImpl* impl) : impl_(impl) {
    if (impl_ != nullptr) impl_->AddRef();
  }
  ActorRef(const ActorRef& other) : ActorRef(other.impl_) {}
  ActorRef(ActorRef&& other) noexcept
      : impl_(std::exchange(other.impl_, nullptr)) {}
  ActorRef& operator=(ActorRef other) noexcept {
    std::swap(impl_, other.impl_);
    return *this;
  }
  ~ActorRef() {
    if (impl_ != nullptr) impl_->Release();
  }

  // Sends `message` (any movable type). Inside an actor the sender is that
  // actor (Self()), elsewhere NoSender, as in Akka.NET. Never blocks, except
  // on a bounded mailbox configured with a push timeout.
  template <typename T>
  void Tell(T&& message) const {
    TellFrom(std::forward<T>(message), internal::CurrentSelf());
  }
  template <typename T>
  void Tell(T&& message, const ActorRef& sender) const {
    TellFrom(std::forward<T>(message), sender.impl_);
  }

  // Sends an already type-erased message (shared, not copied).
  void TellAny(const AnyMessage& message, const ActorRef& sender) const;

  // Sends `message` keeping the sender of the message the calling actor is
  // processing (outside an actor: NoSender).
  template <typename T>
  void Forward(T&& message) const;

  // The actor's path, with its uid. NoSender's path is `akka://nobody/`.
  ActorPath Path() const;

  bool IsNobody() const { return impl_ == nullptr; }
  explicit operator bool() const { return impl_ != nullptr; }

  friend bool operator==(const ActorRef& a, const ActorRef& b) {
    return a.impl_ == b.impl_;
  }
  friend bool operator!=(const ActorRef& a, const ActorRef& b) {
    return a.impl_ != b.impl_;
  }
  friend bool operator<(const ActorRef& a, const ActorRef& b) {
    return std::less<>()(a.impl_, b.impl_);
  }
  template <typename H>
  friend H AbslHashValue(H h, const ActorRef& ref) {
    return H::combine(std::move(h), ref.impl_);
  }
  friend std::ostream& operator<<(std::ostream& os, const ActorRef& ref);

  // For the runtime.
  internal::ActorRefImpl* impl() const { return impl_; }

 private:
  template <typename T>
  void TellFrom(T&& message, internal::ActorRefImpl* sender) const {
    if (impl_ == nullptr) return;
    impl_->Deliver(new internal::InlineEnvelope<std::decay_t<T>>(
        std::forward<T>(message), sender));
  }

  internal::ActorRefImpl* impl_ = nullptr;
};

namespace internal {
// The sender of the message the calling thread's actor is processing.
ActorRefImpl* CurrentSender();
}  // namespace internal

template <typename T>
void ActorRef::Forward(T&& message) const {
  TellFrom(std::forward<T>(message), internal::CurrentSender());
}

}  // namespace cairn::actor

template <>
struct std::hash<cairn::actor::ActorRef> {
  size_t operator()(const cairn::actor::ActorRef& ref) const noexcept {
    return std::hash<const void*>()(ref.impl());
  }
};

#endif  // CAIRN_ACTOR_ACTOR_REF_H_
