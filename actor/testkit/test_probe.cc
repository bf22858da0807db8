#include "actor/testkit/test_probe.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/envelope.h"
#include "actor/internal/system_message.h"
#include "actor/testkit/deterministic.h"
#include "base/mutex.h"

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
    base::MutexLock lock(&mu_);
    if (probe_ == nullptr) return;
    envelope->payload().AddRef();
    probe_->Push(AnyMessage(&envelope->payload()),
                 ActorRef(envelope->sender()));
  }
  void SendSystem(SystemMessage* message) override {
    std::unique_ptr<SystemMessage> m(message);
    if (m->kind != SystemMessageKind::kDeathWatchNotification) return;
    base::MutexLock lock(&mu_);
    if (probe_ == nullptr) return;
    probe_->Push(AnyMessage::Of(Terminated{m->ref, m->existence_confirmed,
                                           m->address_terminated}),
                 m->ref);
  }
  ActorPath Path() const override { return path_; }
  bool IsTerminated() const override {
    base::MutexLock lock(&mu_);
    return probe_ == nullptr;
  }
  ActorSystem* GetSystem() const override { return system_; }

  // The probe is gone: later messages are dropped.
  void Detach() {
    base::MutexLock lock(&mu_);
    probe_ = nullptr;
  }

 private:
  mutable base::Mutex mu_;
  TestProbe* probe_ ABSL_GUARDED_BY(mu_);
  ActorSystem* const system_;
  const ActorPath path_;
};

}  // namespace internal

namespace {
std::atomic<int64_t> next_probe{1};
}

TestProbe::TestProbe(ActorSystem& system, std::string name)
    : driver_(internal::DeterministicQueue(system)) {
  if (name.empty()) name = absl::StrCat("testProbe-", next_probe++);
  ref_ = new internal::ProbeRef(this, &system,
                                ActorPath(system.address(), {"system", name}));
  ref_->AddRef();
}

TestProbe::~TestProbe() {
  ref_->Detach();
  ref_->Release();
}

ActorRef TestProbe::Ref() const { return ActorRef(ref_); }

void TestProbe::Push(AnyMessage message, ActorRef sender) {
  {
    base::MutexLock lock(&pilot_mu_);
    if (pilot_ && !pilot_(sender, message)) pilot_ = nullptr;
  }
  {
    base::MutexLock lock(&mu_);
    if (ignore_ && ignore_(message)) return;
    queue_.push_back(Received{std::move(message), std::move(sender)});
  }
  cv_.SignalAll();
}

absl::Duration TestProbe::Bounded(absl::Duration timeout) const {
  if (deadlines_.empty()) return timeout;
  return std::clamp(deadlines_.back() - absl::Now(), absl::ZeroDuration(),
                    timeout);
}

absl::Duration TestProbe::RemainingOr(absl::Duration fallback) const {
  if (deadlines_.empty()) return fallback;
  return std::max(deadlines_.back() - absl::Now(), absl::ZeroDuration());
}

void TestProbe::Within(absl::Duration max, const std::function<void()>& block) {
  Within(absl::ZeroDuration(), max, block);
}

void TestProbe::Within(absl::Duration min, absl::Duration max,
                       const std::function<void()>& block) {
  const absl::Time start = absl::Now();
  absl::Time deadline = start + max;
  if (!deadlines_.empty()) deadline = std::min(deadline, deadlines_.back());
  deadlines_.push_back(deadline);
  try {
    block();
  } catch (...) {
    deadlines_.pop_back();
    throw;
  }
  deadlines_.pop_back();
  const absl::Duration took = absl::Now() - start;
  if (took < min) {
    throw TestKitAssertion(
        absl::StrCat("Within: the block took ", absl::FormatDuration(took),
                     ", less than the minimum ", absl::FormatDuration(min)));
  }
  if (took > max) {
    throw TestKitAssertion(
        absl::StrCat("Within: the block took ", absl::FormatDuration(took),
                     ", more than the maximum ", absl::FormatDuration(max)));
  }
}

void TestProbe::IgnoreMessages(std::function<bool(const AnyMessage&)> ignore) {
  base::MutexLock lock(&mu_);
  ignore_ = std::move(ignore);
}

void TestProbe::IgnoreNoMessages() {
  base::MutexLock lock(&mu_);
  ignore_ = nullptr;
}

void TestProbe::SetAutoPilot(AutoPilot pilot) {
  base::MutexLock lock(&pilot_mu_);
  pilot_ = std::move(pilot);
}

std::vector<AnyMessage> TestProbe::ReceiveN(size_t n, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + Bounded(timeout);
  std::vector<AnyMessage> received;
  received.reserve(n);
  while (received.size() < n) {
    received.push_back(
        ReceiveOne(std::max(deadline - absl::Now(), absl::ZeroDuration()),
                   absl::StrCat("message ", received.size() + 1, " of ", n)));
  }
  return received;
}

AnyMessage TestProbe::FishForAny(
    const std::function<bool(const AnyMessage&)>& fish, absl::Duration timeout,
    const std::string& hint) {
  const absl::Time deadline = absl::Now() + Bounded(timeout);
  int dropped = 0;
  while (true) {
    const absl::Duration left =
        std::max(deadline - absl::Now(), absl::ZeroDuration());
    AnyMessage m =
        ReceiveOne(left, absl::StrCat(hint, " (FishForMessage, ", dropped,
                                      " other messages dropped)"));
    if (fish(m)) return m;
    ++dropped;
  }
}

void TestProbe::Drive() {
  if (driver_ != nullptr) internal::DispatchAllOrFail(*driver_, max_turns_);
}

AnyMessage TestProbe::ReceiveOne(absl::Duration timeout,
                                 const std::string& what) {
  if (driver_ != nullptr) {
    Drive();
    base::MutexLock lock(&mu_);
    if (queue_.empty()) {
      throw TestKitAssertion(absl::StrCat(
          "no message while expecting ", what,
          " (deterministic mode: nothing is left to run; advance the "
          "ManualClock if a timer should send it)"));
    }
    last_ = std::move(queue_.front());
    queue_.pop_front();
    return last_.message;
  }
  timeout = Bounded(timeout);
  const absl::Time deadline = absl::Now() + timeout;
  base::MutexLock lock(&mu_);
  while (queue_.empty()) {
    if (cv_.WaitWithDeadline(&mu_, deadline) && queue_.empty()) {
      throw TestKitAssertion(absl::StrCat("timeout (",
                                          absl::FormatDuration(timeout),
                                          ") while waiting for ", what));
    }
  }
  last_ = std::move(queue_.front());
  queue_.pop_front();
  return last_.message;
}

void TestProbe::ExpectNoMsg(absl::Duration duration) {
  if (driver_ != nullptr) {
    Drive();
    duration = absl::ZeroDuration();
  }
  duration = Bounded(duration);
  const absl::Time deadline = absl::Now() + duration;
  base::MutexLock lock(&mu_);
  while (queue_.empty()) {
    if (cv_.WaitWithDeadline(&mu_, deadline)) break;
  }
  if (!queue_.empty()) {
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
  base::MutexLock lock(&mu_);
  return last_.sender;
}

void TestProbe::Forward(const ActorRef& target) {
  base::MutexLock lock(&mu_);
  target.TellAny(last_.message, last_.sender);
}

size_t TestProbe::PendingCount() const {
  base::MutexLock lock(&mu_);
  return queue_.size();
}

}  // namespace cairn::actor::testkit
