#ifndef CAIRN_EXAMPLES_STORE_FAILURE_CROWD_STORY_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_CROWD_STORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_ref.h"
#include "actor/future.h"
#include "examples/store_failure/flaky_store.h"
#include "examples/store_failure/protocol.h"

namespace cairn::examples::store_failure {

// The settings of part 2: with random_factor 0.5, each delay is
// 400 ms * (1 + U[0,1) * 0.5), somewhere in [400 ms, 600 ms).
inline constexpr absl::Duration kCrowdMinBackoff = absl::Milliseconds(400);
inline constexpr absl::Duration kCrowdMaxBackoff = absl::Milliseconds(1600);
inline constexpr double kCrowdRandomFactor = 0.5;

// What part 2 saw.
struct CrowdReport {
  // When each counter started again, since the outage began.
  std::vector<absl::Duration> restarted_after;
  // One line per counter whose recovered count is not its last
  // acknowledged one (none, if all is well).
  std::vector<std::string> mismatches;
};

// Part 2 of the story: `size` counters, each under a Backoff::OnStop
// supervisor of its own, all stopped by the same outage.
//
// Once every counter has recovered and acknowledged one increment, the
// store goes down and each is sent one more, whose write fails: they all
// stop at the same moment. The store comes back as soon as the last has
// stopped; each supervisor starts its counter again after its own jittered
// back-off, and each counter recovers its acknowledged count. Completes
// `done` when every counter is back.
class CrowdStory final : public actor::Actor {
 public:
  CrowdStory(std::shared_ptr<FlakyStore> store, int size,
             actor::Promise<CrowdReport> done);

  void PreStart() override;

 private:
  enum class Phase { kStarting, kWarming, kOutage, kDone };
  struct Member {
    actor::ActorRef supervisor;
    int64_t acknowledged = 0;
    bool stopped = false;
    std::optional<absl::Duration> restarted_after;
    bool back = false;  // recovered after the outage
  };

  void OnRecovered(const CounterRecovered& note);
  void OnAcked(const Acked& ack);
  void BeginOutage();
  void OnStopped(const CounterStopped& note);
  void Finish();
  void Fail(const std::string& what);
  void TellEveryone(const Increment& increment);
  int64_t MsSinceOutage(absl::Time at) const;

  const std::shared_ptr<FlakyStore> store_;
  const int size_;
  actor::Promise<CrowdReport> done_;
  std::map<std::string, Member> members_;  // by persistence id
  Phase phase_ = Phase::kStarting;
  bool store_down_ = false;
  int done_in_phase_ = 0;  // members that did what the phase waits for
  absl::Time outage_began_;
  CrowdReport report_;
};

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_CROWD_STORY_H_
