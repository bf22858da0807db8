#include "actor/internal/dead_letters.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/internal/system_access.h"
#include "actor/internal/system_message.h"
#include "actor/internal/system_settings.h"
#include "actor/messages.h"

namespace cairn::actor::internal {

void ActorRefImpl::SendSystem(SystemMessage* message) {
  std::unique_ptr<SystemMessage> m(message);
  // Not an actor: it can never stop, so a watcher learns at once that
  // there is nothing to watch.
  if (m->kind == SystemMessageKind::kWatch && m->ref.impl() != nullptr) {
    auto* n = new SystemMessage(SystemMessageKind::kDeathWatchNotification,
                                ActorRef(this));
    n->existence_confirmed = false;
    m->ref.impl()->SendSystem(n);
  }
}

ActorPath DeadLettersRef::Path() const {
  return ActorPath(system_->address(), {"deadLetters"});
}

EmptyLocalRef::EmptyLocalRef(ActorSystem* system, ActorPath path)
    : system_(system),
      path_(std::move(path)),
      dead_letters_(system->DeadLetters()) {}

void EmptyLocalRef::Deliver(Envelope* envelope) {
  static_cast<DeadLettersRef*>(dead_letters_.impl())
      ->DeadLetterFrom(envelope, this);
}

void DeadLettersRef::Deliver(Envelope* envelope) {
  DeadLetterFrom(envelope, this);
}

void DeadLettersRef::DeadLetterFrom(Envelope* envelope,
                                    ActorRefImpl* recipient) {
  std::unique_ptr<Envelope, EnvelopeDisposer> owned(envelope);
  const Payload& payload = envelope->payload();
  // Event-stream traffic that found its subscriber gone is not itself
  // reported: that would publish a dead letter about a dead letter, forever.
  if (payload.type() == typeid(DeadLetter) ||
      payload.type() == typeid(UnhandledMessage)) {
    return;
  }
  payload.AddRef();
  DeadLetter letter{AnyMessage(&payload), ActorRef(envelope->sender()),
                    ActorRef(recipient)};
  const SystemSettings& settings = SystemAccess::Settings(*system_);
  const bool quiet = SystemAccess::Terminating(*system_) &&
                     !settings.log_dead_letters_during_shutdown;
  if (!quiet && settings.log_dead_letters != 0 &&
      settings.loglevel <= LogLevel::kInfo) {
    int64_t n = logged_.fetch_add(1, std::memory_order_relaxed);
    if (settings.log_dead_letters < 0 || n < settings.log_dead_letters) {
      system_->Log(Path().ToString())
          .Info(absl::StrCat(
              "Message [", letter.message.TypeName(), "] from ",
              letter.sender.IsNobody() ? "NoSender"
                                       : letter.sender.Path().ToString(),
              " to ", letter.recipient.Path().ToString(),
              " was not delivered. [", n + 1, "] dead letters encountered."));
    }
  }
  system_->EventStream().Publish(std::move(letter));
}

}  // namespace cairn::actor::internal
