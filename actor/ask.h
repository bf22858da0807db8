#ifndef CAIRN_ACTOR_ASK_H_
#define CAIRN_ACTOR_ASK_H_

#include <concepts>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/future.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/envelope.h"
#include "actor/messages.h"

namespace cairn::actor {

namespace internal {

// The temporary sender of an Ask: completes the promise with the first
// reply. A StatusFailure reply fails it with its cause; a reply of another
// type fails it with std::runtime_error naming both types.
template <typename R>
class AskRef final : public ActorRefImpl {
 public:
  AskRef(ActorSystem* system, ActorPath path)
      : system_(system), path_(std::move(path)) {}
  // Gone with nothing holding it (the request and its timeout dropped, as
  // when the system terminates): no reply can come any more. Completing
  // the future also runs and drops its callbacks, which hold the future.
  ~AskRef() override {
    promise_.TrySetException(std::make_exception_ptr(AskTimeoutException(
        absl::StrCat("Ask: its reply target ", path_.ToString(),
                     " is gone before a reply came (the actor system "
                     "terminated)"))));
  }

  void Deliver(Envelope* envelope) override {
    std::unique_ptr<Envelope, EnvelopeDisposer> owned(envelope);
    const Payload& p = envelope->payload();
    if constexpr (std::is_same_v<R, AnyMessage>) {
      p.AddRef();
      promise_.TrySetValue(AnyMessage(&p));
    } else {
      if (const R* reply = PayloadAs<R>(p)) {
        promise_.TrySetValue(*reply);
        return;
      }
      if (const StatusFailure* failure = PayloadAs<StatusFailure>(p)) {
        promise_.TrySetException(failure->cause);
        return;
      }
      promise_.TrySetException(
          std::make_exception_ptr(std::runtime_error(absl::StrCat(
              "Ask expected a reply of type ", DemangledTypeName(typeid(R)),
              " but got ", DemangledTypeName(p.type())))));
    }
  }
  ActorPath Path() const override { return path_; }
  bool IsTerminated() const override { return promise_.GetFuture().is_ready(); }
  ActorSystem* GetSystem() const override { return system_; }

  Promise<R>& promise() { return promise_; }

 private:
  ActorSystem* const system_;
  const ActorPath path_;
  Promise<R> promise_;
};

// The timeout of one Ask, held by the scheduled action (shared by its
// copies): fails the Ask when due, and also when the action is dropped
// unrun, as the scheduler drops every pending action when the system
// terminates. The reply target's own destructor is not enough for that:
// whatever still holds the request (a stashed message, a queue nothing
// drains any more, an actor that kept Sender()) keeps it alive until the
// system object is destroyed, and a caller waiting for the answer before
// destroying the system would wait for ever.
template <typename R>
class AskTimeout {
 public:
  AskTimeout(ActorRef reply_to, ActorRef target, absl::Duration timeout)
      : reply_to_(std::move(reply_to)),
        target_(std::move(target)),
        timeout_(timeout) {}
  ~AskTimeout() {
    if (promise().GetFuture().is_ready()) return;  // the usual end: no cost
    Fail(": the actor system terminated before a reply came");
  }
  AskTimeout(const AskTimeout&) = delete;
  AskTimeout& operator=(const AskTimeout&) = delete;

  void Due() {
    Fail(absl::StrCat(" timed out after ", absl::FormatDuration(timeout_)));
  }

 private:
  Promise<R>& promise() {
    return static_cast<AskRef<R>*>(reply_to_.impl())->promise();
  }
  void Fail(const std::string& why) {
    promise().TrySetException(std::make_exception_ptr(AskTimeoutException(
        absl::StrCat("Ask to ", target_.Path().ToString(), why))));
  }

  const ActorRef reply_to_;
  const ActorRef target_;
  const absl::Duration timeout_;
};

// The path of a new short-lived actor (an Ask's reply target): /temp/$n.
ActorPath NewTempPath(ActorSystem& system);

// Watches `target` for GracefulStop: the future becomes true when it has
// stopped, false if it has not within `timeout`.
Future<bool> WatchForStop(const ActorRef& target, absl::Duration timeout);

}  // namespace internal

namespace internal {
// An Ask whose message `send(reply_to)` sends (from reply_to, the ask's
// temporary actor); see Ask.
template <typename R, typename Send>
Future<R> AskWith(const ActorRef& target, absl::Duration timeout, Send&& send) {
  if (target.IsNobody()) {
    Promise<R> failed;
    failed.TrySetException(std::make_exception_ptr(
        AskTimeoutException("Ask to NoSender can never be answered")));
    return failed.GetFuture();
  }
  ActorSystem* system = target.impl()->GetSystem();
  auto* ref = new AskRef<R>(system, NewTempPath(*system));
  ActorRef reply_to(ref);
  Future<R> future = ref->promise().GetFuture();
  auto deadline = std::make_shared<AskTimeout<R>>(reply_to, target, timeout);
  Cancellable timer = system->Scheduler().ScheduleOnce(
      timeout, [deadline] { deadline->Due(); });
  // The scheduler has stopped (the system has terminated): it dropped the
  // action at once, which failed the future.
  if (timer.IsCancelled()) return future;
  future.OnComplete([timer](const Future<R>&) mutable { timer.Cancel(); });
  std::forward<Send>(send)(reply_to);
  return future;
}
}  // namespace internal

// Sends `message` to `target` and returns a future of its reply of type R
// (use AnyMessage to take any reply). The future fails with
// AskTimeoutException when no reply comes within `timeout` or the system
// terminates first, and with the cause of a StatusFailure reply.
template <typename R, typename M>
Future<R> Ask(const ActorRef& target, M&& message, absl::Duration timeout) {
  return internal::AskWith<R>(target, timeout, [&](const ActorRef& reply_to) {
    target.Tell(std::forward<M>(message), reply_to);
  });
}

// As Ask, for a message that carries the address of its answer (Akka.NET's
// Ask with a message factory, Akka typed's ask): `make_message(reply_to)`
// builds the message around the ActorRef of the ask's temporary actor,
// and it is sent from that actor.
template <typename R, typename F>
requires std::invocable<F&, const ActorRef&> Future<R> AskWithReplyTo(
    const ActorRef& target, F make_message, absl::Duration timeout) {
  return internal::AskWith<R>(target, timeout, [&](const ActorRef& reply_to) {
    target.Tell(make_message(reply_to), reply_to);
  });
}

// When `future` completes, sends its value (or StatusFailure with its
// error) to `recipient`, from `sender`.
template <typename T>
void PipeTo(const Future<T>& future, const ActorRef& recipient,
            const ActorRef& sender = ActorRef()) {
  static_assert(!std::is_void_v<T>, "PipeTo needs a value to send");
  future.OnComplete([recipient, sender](const Future<T>& f) {
    if (std::exception_ptr e = f.error()) {
      recipient.Tell(StatusFailure{e}, sender);
    } else {
      recipient.Tell(f.get(), sender);
    }
  });
}

// Sends `stop_message` (PoisonPill by default) to `target` and returns a
// future that becomes true when the target has stopped, or false if it has
// not within `timeout` (the seed's Task<bool>). An already stopped target
// gives true at once.
template <typename M = PoisonPill>
Future<bool> GracefulStop(const ActorRef& target, absl::Duration timeout,
                          M stop_message = M()) {
  Promise<bool> done;
  if (target.IsNobody()) {
    done.TrySetValue(true);
    return done.GetFuture();
  }
  Future<bool> future = internal::WatchForStop(target, timeout);
  target.Tell(std::move(stop_message), ActorRef());
  return future;
}

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_ASK_H_
