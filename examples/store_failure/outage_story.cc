#include "examples/store_failure/outage_story.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "actor/props.h"
#include "backoff/backoff_options.h"
#include "backoff/backoff_supervisor.h"
#include "examples/store_failure/counter.h"

namespace cairn::examples::store_failure {

using backoff::Backoff;
using backoff::BackoffSupervisor;

namespace {

constexpr char kCounterId[] = "counter";
constexpr int kIncrementsBefore = 5;  // acknowledged before the outage
constexpr int kFailedRecoveries = 3;  // while the store is down
constexpr int kIncrementsAfter = 3;   // once the counter is back

int64_t Ms(absl::Duration d) { return absl::ToInt64Milliseconds(d); }

}  // namespace

OutageStory::OutageStory(std::shared_ptr<FlakyStore> store,
                         actor::Promise<OutageReport> done)
    : store_(std::move(store)), done_(std::move(done)) {
  Receive<CounterStarted>([this](const CounterStarted& n) { OnStarted(n); });
  Receive<CounterRecovered>(
      [this](const CounterRecovered& n) { OnRecovered(n); });
  Receive<Acked>([this](const Acked& a) { OnAcked(a); });
  Receive<CounterPersistFailed>([this](const CounterPersistFailed& n) {
    absl::PrintF("  %s  OnPersistFailure, event %d: %s\n", Since(n.at),
                 n.sequence_nr, absl::StatusCodeToString(n.cause.code()));
    PrintCause(n.cause);
  });
  Receive<CounterRecoveryFailed>([this](const CounterRecoveryFailed& n) {
    ++failed_recoveries_;
    absl::PrintF("  %s  OnRecoveryFailure: %s\n", Since(n.at),
                 absl::StatusCodeToString(n.cause.code()));
    PrintCause(n.cause);
  });
  Receive<CounterStopped>([this](const CounterStopped& n) { OnStopped(n); });
}

void OutageStory::PreStart() {
  supervisor_ = Context().ActorOf(
      BackoffSupervisor::Props(Backoff::OnStop(
          actor::Props::Create<Counter>(std::string(kCounterId), Self()),
          kCounterId, kOutageMinBackoff, kOutageMaxBackoff,
          kOutageRandomFactor)),
      "counter-supervisor");
}

void OutageStory::OnRecovered(const CounterRecovered& note) {
  if (phase_ == Phase::kStarting) {
    absl::PrintF("  the counter recovered: count %d\n", note.count);
    report_.acknowledged = note.count;
    phase_ = Phase::kCounting;
    supervisor_.Tell(Increment{});
  } else if (phase_ == Phase::kOutage && !store_down_) {
    report_.recovered = note.count;
    absl::PrintF(
        "  %s  recovered: count %d (acknowledged before the outage: "
        "%d)\n",
        Since(note.at), note.count, report_.acknowledged);
    phase_ = Phase::kBack;
    acks_ = 0;
    supervisor_.Tell(Increment{});
  } else {
    Fail("the counter recovered while the store was down");
  }
}

void OutageStory::OnAcked(const Acked& ack) {
  absl::PrintF("  increment -> acknowledged: count %d (event %d)\n", ack.count,
               ack.sequence_nr);
  ++acks_;
  if (phase_ == Phase::kCounting) {
    report_.acknowledged = ack.count;
    if (acks_ < kIncrementsBefore) {
      supervisor_.Tell(Increment{});
    } else {
      BeginOutage();
    }
  } else if (phase_ == Phase::kBack) {
    report_.final_count = ack.count;
    if (acks_ < kIncrementsAfter) {
      supervisor_.Tell(Increment{});
    } else {
      phase_ = Phase::kDone;
      done_.TrySetValue(report_);
    }
  } else {
    Fail("an increment was acknowledged while the store was down");
  }
}

void OutageStory::BeginOutage() {
  phase_ = Phase::kOutage;
  outage_began_ = absl::Now();
  store_->GoDown();
  store_down_ = true;
  absl::PrintF(
      "\nThe store goes down: every write and replay fails. Times are since "
      "then.\n");
  absl::PrintF("  %s  increment -> sent; its write will fail\n",
               Since(outage_began_));
  supervisor_.Tell(Increment{});
}

void OutageStory::OnStarted(const CounterStarted& note) {
  if (phase_ != Phase::kOutage) return;  // the first start
  ++restarts_;
  const absl::Duration delay = note.at - last_stop_;
  report_.restart_delays.push_back(delay);
  absl::PrintF("  %s  restart %d, %d ms after the stop: recovering\n",
               Since(note.at), restarts_, Ms(delay));
}

void OutageStory::OnStopped(const CounterStopped& note) {
  if (phase_ == Phase::kDone) return;  // the actor system is going down
  if (phase_ != Phase::kOutage) {
    Fail("the counter stopped although the store was up");
    return;
  }
  last_stop_ = note.at;
  absl::PrintF(
      "  %s  the counter stopped; the supervisor will start it again\n",
      Since(note.at));
  if (store_down_ && failed_recoveries_ == kFailedRecoveries) {
    store_->ComeBack();
    store_down_ = false;
    absl::PrintF("\nThe store comes back, %d ms after it went down.\n",
                 Ms(absl::Now() - outage_began_));
  }
}

void OutageStory::PrintCause(const absl::Status& cause) {
  std::string message(cause.message());
  if (message == last_cause_) return;
  absl::PrintF("               %s\n", message);
  last_cause_ = std::move(message);
}

std::string OutageStory::Since(absl::Time at) const {
  return absl::StrFormat("+%5d ms", Ms(at - outage_began_));
}

void OutageStory::Fail(const std::string& what) {
  phase_ = Phase::kDone;
  done_.TrySetException(std::make_exception_ptr(std::runtime_error(what)));
}

}  // namespace cairn::examples::store_failure
