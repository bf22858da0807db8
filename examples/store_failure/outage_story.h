#ifndef CAIRN_EXAMPLES_STORE_FAILURE_OUTAGE_STORY_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_OUTAGE_STORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_ref.h"
#include "actor/future.h"
#include "examples/store_failure/flaky_store.h"
#include "examples/store_failure/protocol.h"

namespace cairn::examples::store_failure {

// The settings of part 1.
inline constexpr absl::Duration kOutageMinBackoff = absl::Milliseconds(100);
inline constexpr absl::Duration kOutageMaxBackoff = absl::Milliseconds(1600);
inline constexpr double kOutageRandomFactor = 0.2;

// What part 1 saw.
struct OutageReport {
  // The count of the last increment acknowledged before the outage.
  int64_t acknowledged = 0;
  // The count the counter recovered once the store was back.
  int64_t recovered = 0;
  // From each stop of the counter to its next start, during the outage.
  std::vector<absl::Duration> restart_delays;
  // The count after the increments made once it was back.
  int64_t final_count = 0;
};

// Part 1 of the story, told on stdout as it happens: a client of one
// Counter under Backoff::OnStop.
//
// It sends increments and prints each acknowledgement; takes the store
// down and sends one more (its write fails: OnPersistFailure, the counter
// stops); prints every restart the supervisor makes, with its time since
// the outage began (each recovery fails while the store is down, so the
// counter stops again and the back-off doubles); brings the store back
// after a few failed restarts; prints the count the next incarnation
// recovers; and goes on incrementing. Then completes `done`.
//
// The counter is a grandchild: the story's child is the supervisor.
class OutageStory final : public actor::Actor {
 public:
  OutageStory(std::shared_ptr<FlakyStore> store,
              actor::Promise<OutageReport> done);

  void PreStart() override;

 private:
  enum class Phase { kStarting, kCounting, kOutage, kBack, kDone };

  void OnRecovered(const CounterRecovered& note);
  void OnAcked(const Acked& ack);
  void BeginOutage();
  void OnStarted(const CounterStarted& note);
  void OnStopped(const CounterStopped& note);
  // Prints the message of `cause` on a line of its own, unless it is the
  // one printed last.
  void PrintCause(const absl::Status& cause);
  // "+  123 ms": the time of `at` since the outage began.
  std::string Since(absl::Time at) const;
  void Fail(const std::string& what);

  const std::shared_ptr<FlakyStore> store_;
  actor::Promise<OutageReport> done_;
  actor::ActorRef supervisor_;
  Phase phase_ = Phase::kStarting;
  bool store_down_ = false;
  int acks_ = 0;  // in the current phase
  int restarts_ = 0;
  int failed_recoveries_ = 0;
  absl::Time outage_began_;
  absl::Time last_stop_;
  std::string last_cause_;
  OutageReport report_;
};

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_OUTAGE_STORY_H_
