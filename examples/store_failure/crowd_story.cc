#include "examples/store_failure/crowd_story.h"

#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "actor/props.h"
#include "backoff/backoff_options.h"
#include "backoff/backoff_supervisor.h"
#include "examples/store_failure/counter.h"

namespace cairn::examples::store_failure {

using backoff::Backoff;
using backoff::BackoffSupervisor;

CrowdStory::CrowdStory(std::shared_ptr<FlakyStore> store, int size,
                       actor::Promise<CrowdReport> done)
    : store_(std::move(store)), size_(size), done_(std::move(done)) {
  Receive<CounterStarted>([this](const CounterStarted& n) {
    Member& m = members_[n.id];
    if (phase_ == Phase::kOutage && !m.restarted_after.has_value()) {
      m.restarted_after = n.at - outage_began_;
    }
  });
  Receive<CounterRecovered>(
      [this](const CounterRecovered& n) { OnRecovered(n); });
  Receive<Acked>([this](const Acked& a) { OnAcked(a); });
  Receive<CounterPersistFailed>([](const CounterPersistFailed&) {});
  Receive<CounterRecoveryFailed>([this](const CounterRecoveryFailed& n) {
    // A restart while the store is still down fails, and the supervisor
    // tries again later; with the store up, a failure is a real one.
    if (!store_down_) Fail(std::string(n.cause.message()));
  });
  Receive<CounterStopped>([this](const CounterStopped& n) { OnStopped(n); });
}

void CrowdStory::PreStart() {
  for (int i = 0; i < size_; ++i) {
    const std::string id = absl::StrFormat("crowd-%02d", i);
    members_[id].supervisor = Context().ActorOf(
        BackoffSupervisor::Props(Backoff::OnStop(
            actor::Props::Create<Counter>(id, Self()), id, kCrowdMinBackoff,
            kCrowdMaxBackoff, kCrowdRandomFactor)),
        id + "-supervisor");
  }
}

void CrowdStory::OnRecovered(const CounterRecovered& note) {
  Member& m = members_[note.id];
  if (phase_ == Phase::kStarting) {
    m.acknowledged = note.count;
    if (++done_in_phase_ < size_) return;
    absl::PrintF("  %d counters recovered; each is sent an increment\n", size_);
    phase_ = Phase::kWarming;
    done_in_phase_ = 0;
    TellEveryone(Increment{});
  } else if (phase_ == Phase::kOutage && !store_down_ && !m.back) {
    m.back = true;
    if (note.count != m.acknowledged) {
      report_.mismatches.push_back(absl::StrCat(note.id, ": recovered ",
                                                note.count, ", acknowledged ",
                                                m.acknowledged));
    }
    if (++done_in_phase_ == size_) Finish();
  } else {
    Fail(absl::StrCat(note.id, " recovered at an unexpected moment"));
  }
}

void CrowdStory::OnAcked(const Acked& ack) {
  if (phase_ != Phase::kWarming) {
    Fail(absl::StrCat(ack.id, " acknowledged at an unexpected moment"));
    return;
  }
  members_[ack.id].acknowledged = ack.count;
  if (++done_in_phase_ == size_) {
    absl::PrintF("  %d increments acknowledged\n", size_);
    BeginOutage();
  }
}

void CrowdStory::BeginOutage() {
  phase_ = Phase::kOutage;
  done_in_phase_ = 0;
  outage_began_ = absl::Now();
  store_->GoDown();
  store_down_ = true;
  absl::PrintF(
      "  +    0 ms  the store goes down; each counter is sent one more "
      "increment\n");
  TellEveryone(Increment{});
}

void CrowdStory::OnStopped(const CounterStopped& note) {
  if (phase_ == Phase::kDone) return;  // the actor system is going down
  Member& m = members_[note.id];
  if (phase_ != Phase::kOutage) {
    Fail(absl::StrCat(note.id, " stopped at an unexpected moment"));
    return;
  }
  if (m.stopped) return;  // again, after a restart while the store was down
  m.stopped = true;
  if (++done_in_phase_ < size_) return;
  absl::PrintF(
      "  +%5d ms  all %d counters have stopped on OnPersistFailure; the "
      "store comes back\n",
      MsSinceOutage(note.at), size_);
  done_in_phase_ = 0;
  store_->ComeBack();
  store_down_ = false;
}

void CrowdStory::Finish() {
  phase_ = Phase::kDone;
  for (const auto& [id, m] : members_) {
    report_.restarted_after.push_back(
        m.restarted_after.value_or(absl::InfiniteDuration()));
  }
  done_.TrySetValue(report_);
}

void CrowdStory::Fail(const std::string& what) {
  phase_ = Phase::kDone;
  done_.TrySetException(std::make_exception_ptr(std::runtime_error(what)));
}

void CrowdStory::TellEveryone(const Increment& increment) {
  for (const auto& [id, m] : members_) m.supervisor.Tell(increment);
}

int64_t CrowdStory::MsSinceOutage(absl::Time at) const {
  return absl::ToInt64Milliseconds(at - outage_began_);
}

}  // namespace cairn::examples::store_failure
