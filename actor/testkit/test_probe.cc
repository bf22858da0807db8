#include "actor/testkit/test_probe.h"

#include <atomic>
#include <memory>

#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/envelope.h"
#include "actor/internal/system_message.h"

namespace cairn::actor::testkit {

namespace internal {

using actor::internal::ActorRefImpl;
using actor::internal::Envelope;
using actor::internal::EnvelopeDisposer;
using actor::internal::SystemMessage;
using actor::internal::SystemMessageKind;

// Queues what it receives into its probe. Turns a DeathWatchNotification
// into Terminated, the way an actor's cell would.
class ProbeRef final : public ActorRefImpl {
 public:
  ProbeRef(TestProbe* probe, ActorSystem* system, ActorPath path)
      : probe_(probe), system_(system), path_(std::move(path)) {}

  void Deliver(Envelope* envelope) override {
    std::unique_ptr<Envelope, EnvelopeDisposer> owned(envelope);
    std::lock_guard<std::mutex> lock(mu_);
    if (probe_ == nullptr) return;
    envelope->payload().AddRef();
    probe_->Push(AnyMessage(&envelope->payload()),
                 ActorRef(envelope->sender()));
  }
  void SendSystem(SystemMessage* message) override {
    std::unique_ptr<SystemMessage> m(message);
    if (m->kind != SystemMessageKind::kDeathWatchNotification) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (probe_ == nullptr) return;
    probe_->Push(AnyMessage::Of(Terminated{m->ref, m->existence_confirmed,
                                           m->address_terminated}),
                 m->ref);
  }
  ActorPath Path() const override { return path_; }
  bool IsTerminated() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return probe_ == nullptr;
  }
  ActorSystem* GetSystem() const override { return system_; }

  // The probe is gone: later messages are dropped.
  void Detach() {
    std::lock_guard<std::mutex> lock(mu_);
    probe_ = nullptr;
  }

 private:
  mutable std::mutex mu_;
  TestProbe* probe_;
  ActorSystem* const system_;
  const ActorPath path_;
};

}  // namespace internal

namespace {
std::atomic<int64_t> next_probe{1};
}

TestProbe::TestProbe(ActorSystem& system, std::string name) : system_(system) {
  if (name.empty()) name = absl::StrCat("testProbe-", next_probe++);
  ref_ = new internal::ProbeRef(this, &system,
                                ActorPath(system.name(), {"system", name}));
  ref_->AddRef();
}

TestProbe::~TestProbe() {
  ref_->Detach();
  ref_->Release();
}

ActorRef TestProbe::Ref() const { return ActorRef(ref_); }

void TestProbe::Push(AnyMessage message, ActorRef sender) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(Received{std::move(message), std::move(sender)});
  }
  cv_.notify_all();
}

AnyMessage TestProbe::ReceiveOne(absl::Duration timeout,
                                 const std::string& what) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                    [&] { return !queue_.empty(); })) {
    throw TestKitAssertion(absl::StrCat("timeout (",
                                        absl::FormatDuration(timeout),
                                        ") while waiting for ", what));
  }
  last_ = std::move(queue_.front());
  queue_.pop_front();
  return last_.message;
}

void TestProbe::ExpectNoMsg(absl::Duration duration) {
  std::unique_lock<std::mutex> lock(mu_);
  if (cv_.wait_for(lock, absl::ToChronoNanoseconds(duration),
                   [&] { return !queue_.empty(); })) {
    throw TestKitAssertion(absl::StrCat("expected no message but got ",
                                        queue_.front().message.TypeName()));
  }
}

ActorRef TestProbe::Watch(const ActorRef& subject) {
  if (!subject.IsNobody()) {
    subject.impl()->SendSystem(new actor::internal::SystemMessage(
        actor::internal::SystemMessageKind::kWatch, Ref()));
  }
  return subject;
}

ActorRef TestProbe::Unwatch(const ActorRef& subject) {
  if (!subject.IsNobody()) {
    subject.impl()->SendSystem(new actor::internal::SystemMessage(
        actor::internal::SystemMessageKind::kUnwatch, Ref()));
  }
  return subject;
}

Terminated TestProbe::ExpectTerminated(const ActorRef& subject,
                                       absl::Duration timeout) {
  return ExpectMsg<Terminated>(
      [&](const Terminated& t) { return t.actor == subject; },
      absl::StrCat("Terminated for ", subject.Path().ToString()), timeout);
}

ActorRef TestProbe::LastSender() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_.sender;
}

void TestProbe::Forward(const ActorRef& target) {
  std::lock_guard<std::mutex> lock(mu_);
  target.TellAny(last_.message, last_.sender);
}

size_t TestProbe::PendingCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

}  // namespace cairn::actor::testkit
