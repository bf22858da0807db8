#ifndef CAIRN_ACTOR_TYPED_REF_H_
#define CAIRN_ACTOR_TYPED_REF_H_

#include <concepts>
#include <cstddef>
#include <functional>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/time/time.h"
#include "actor/actor_path.h"
#include "actor/actor_ref.h"
#include "actor/ask.h"
#include "actor/future.h"
#include "base/variant_traits.h"

namespace cairn::actor {

// What a TypedRef<M> takes: an M, one of M's alternatives when M is a
// std::variant, or a value that converts to an M without narrowing (an int
// for an int64_t, a const char* for a std::string; not a double for an
// int64_t).
template <typename T, typename M>
concept AcceptedBy = std::is_same_v<std::remove_cvref_t<T>, M> ||
    base::IsAlternativeOf<std::remove_cvref_t<T>, M>::value ||
    (std::convertible_to<T, M>&& requires(T&& t) { M{std::forward<T>(t)}; });

// Calls `deliver` with what a reference typed M sends for `message` (an
// AcceptedBy<M> value): a variant's alternative, an alternative as it is,
// anything else converted to M first. For references typed M other than
// TypedRef (sharding's EntityRef).
template <typename M, typename T, typename Deliver>
requires AcceptedBy<T, M>
void SendAs(T&& message, const Deliver& deliver) {
  using V = std::remove_cvref_t<T>;
  if constexpr (base::IsVariant<M>::value) {
    if constexpr (std::is_same_v<V, M>) {
      std::visit(
          [&](auto&& alternative) {
            deliver(std::forward<decltype(alternative)>(alternative));
          },
          std::forward<T>(message));
    } else if constexpr (base::IsAlternativeOf<V, M>::value) {
      deliver(std::forward<T>(message));
    } else {
      SendAs<M>(M(std::forward<T>(message)), deliver);
    }
  } else if constexpr (std::is_same_v<V, M>) {
    deliver(std::forward<T>(message));
  } else {
    deliver(M(std::forward<T>(message)));
  }
}

// An ActorRef that only takes messages of type M (Akka typed's
// ActorRef[M]): a message of another type is a compile error, not a dead
// letter at run time. M is one type (a reply's: ReplyTo<int64_t>), or a
// std::variant of the commands an actor accepts (TypedRef<AccountCommand>).
//
// What goes on the wire is always a concrete type: a variant is sent as
// the alternative it holds, so the receiver (and a serializer, across
// processes) sees the command's own type, as if told with an ActorRef; a
// value that only converts to M is converted first (ReplyTo<int64_t> told
// an int sends an int64_t; a narrowing conversion does not compile).
//
// Cheap to copy (one ActorRef), comparable and hashable; a
// default-constructed one is NoSender and drops what it is told.
// Thread safety: every method may be called from any thread.
template <typename M>
class TypedRef {
 public:
  using Message = M;

  TypedRef() = default;
  // Asserts that `ref`'s actor takes M; nothing checks it.
  explicit TypedRef(ActorRef ref) : ref_(std::move(ref)) {}

  // Sends `message` with the calling actor as its sender (outside an
  // actor: NoSender), as ActorRef::Tell.
  template <typename T>
  requires AcceptedBy<T, M>
  void Tell(T&& message) const {
    SendAs<M>(std::forward<T>(message),
              [this](auto&& m) { ref_.Tell(std::forward<decltype(m)>(m)); });
  }
  template <typename T>
  requires AcceptedBy<T, M>
  void Tell(T&& message, const ActorRef& sender) const {
    SendAs<M>(std::forward<T>(message), [this, &sender](auto&& m) {
      ref_.Tell(std::forward<decltype(m)>(m), sender);
    });
  }

  // The untyped reference (to watch the actor, or to hand to code that
  // takes an ActorRef).
  const ActorRef& ref() const { return ref_; }
  ActorPath Path() const { return ref_.Path(); }
  bool IsNobody() const { return ref_.IsNobody(); }
  explicit operator bool() const { return !IsNobody(); }

  friend bool operator==(const TypedRef& a, const TypedRef& b) {
    return a.ref_ == b.ref_;
  }
  template <typename H>
  friend H AbslHashValue(H h, const TypedRef& ref) {
    return H::combine(std::move(h), ref.ref_);
  }

 private:
  ActorRef ref_;
};

// The reference a command carries for its answer (Akka typed's replyTo):
// a command `struct GetBalance { ReplyTo<int64_t> reply_to; };` can only
// be answered with an int64_t.
template <typename R>
using ReplyTo = TypedRef<R>;

// Asks a typed actor (Akka typed's ask): `make_message(reply_to)` builds
// the command around the ReplyTo<R> of the ask's temporary actor, and the
// future gets its reply, as Ask (ask.h) for an ActorRef:
//
//   Future<int64_t> balance = Ask<int64_t>(
//       account, [](ReplyTo<int64_t> to) { return GetBalance{to}; },
//       absl::Seconds(3));
template <typename R, typename M, typename F>
requires std::invocable<F&, ReplyTo<R>> &&
    AcceptedBy<std::invoke_result_t<F&, ReplyTo<R>>, M>
        Future<R> Ask(const TypedRef<M>& target, F make_message,
                      absl::Duration timeout) {
  // Through the TypedRef, which sends a variant as its alternative.
  return internal::AskWith<R>(
      target.ref(), timeout, [&](const ActorRef& reply_to) {
        target.Tell(make_message(ReplyTo<R>(reply_to)), reply_to);
      });
}

}  // namespace cairn::actor

template <typename M>
struct std::hash<cairn::actor::TypedRef<M>> {
  size_t operator()(const cairn::actor::TypedRef<M>& ref) const noexcept {
    return std::hash<cairn::actor::ActorRef>()(ref.ref());
  }
};

#endif  // CAIRN_ACTOR_TYPED_REF_H_
