#ifndef CAIRN_ACTOR_INTERNAL_ENVELOPE_H_
#define CAIRN_ACTOR_INTERNAL_ENVELOPE_H_

#include <cstdint>
#include <utility>

#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/mpsc_queue.h"
#include "actor/internal/payload.h"

namespace cairn::actor::internal {

// One delivery of a message: a node of one mailbox, the sender, and the
// (shared, immutable) payload. Owned by whoever holds the pointer; released
// with Dispose().
class Envelope : public MpscNode {
 public:
  Envelope(const Envelope&) = delete;
  Envelope& operator=(const Envelope&) = delete;

  const Payload& payload() const { return *payload_; }
  // The sender; nullptr for NoSender. Borrowed: valid while the envelope is.
  ActorRefImpl* sender() const { return sender_; }

  // Destroys the envelope (and the payload, once nothing else shares it).
  virtual void Dispose() = 0;
  // A message a SendRoute declined with a token (send_route.h): the token,
  // once (then 0); 0 for every other envelope.
  virtual uint32_t TakeRouteToken() { return 0; }

 protected:
  Envelope(const Payload* payload, ActorRefImpl* sender)
      : payload_(payload), sender_(sender) {
    if (sender_ != nullptr) sender_->AddRef();
  }
  ~Envelope() {
    if (sender_ != nullptr) sender_->Release();
  }

  const Payload* payload_;

 private:
  ActorRefImpl* sender_;
};

// The envelope and its payload in one allocation: what Tell creates.
template <typename T>
class InlineEnvelope final : public Envelope, public PayloadOf<T> {
 public:
  template <typename U>
  InlineEnvelope(U&& value, ActorRefImpl* sender)
      : Envelope(this, sender),
        PayloadOf<T>(std::in_place, std::forward<U>(value)) {}

  void Dispose() override { PayloadOf<T>::Release(); }
};

// A further delivery of a payload that already exists (forward, publish,
// dead letters, repeated timers): shares the payload.
class SharedEnvelope final : public Envelope {
 public:
  // Adopts one reference to `payload`.
  SharedEnvelope(const Payload* payload, ActorRefImpl* sender)
      : Envelope(payload, sender) {}

  void Dispose() override {
    payload_->Release();
    delete this;
  }
};

// A message a SendRoute declined with a token: the actor's runtime tells the
// route when it has been processed.
class RoutedEnvelope final : public Envelope {
 public:
  // Adopts one reference to `payload`.
  RoutedEnvelope(const Payload* payload, ActorRefImpl* sender, uint32_t token)
      : Envelope(payload, sender), token_(token) {}

  uint32_t TakeRouteToken() override { return std::exchange(token_, 0); }
  void Dispose() override {
    payload_->Release();
    delete this;
  }

 private:
  uint32_t token_;
};

// Disposes an envelope at scope exit.
struct EnvelopeDisposer {
  void operator()(Envelope* e) const { e->Dispose(); }
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ENVELOPE_H_
