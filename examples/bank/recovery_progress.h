#ifndef CAIRN_EXAMPLES_BANK_RECOVERY_PROGRESS_H_
#define CAIRN_EXAMPLES_BANK_RECOVERY_PROGRESS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/clock.h"
#include "base/mutex.h"

namespace cairn::examples::bank {

// How far the recoveries of a bank's persistent actors have got, and when
// anything last moved. The actors report as they recover (each Account its
// snapshot and events); the program waiting for their
// answers reads it, to show progress and to tell a recovery that is slow,
// which it waits for however long it takes, from one that is stuck, which
// it gives up on with a reason (recovery_wait.h).
//
// Thread safety: every method from any thread. The per-event reports
// (Stream::Reached) take no lock.
class RecoveryProgress {
 public:
  // The recovery of one persistence id.
  class Stream {
   public:
    explicit Stream(RecoveryProgress* owner) : owner_(owner) {}
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    // A new incarnation starts recovering from nothing.
    void Restart();
    // The recovery has reached `sequence_nr`: a snapshot's, or an event's.
    void Reached(int64_t sequence_nr);
    // The recovery is complete.
    void Finished();
    // The recovery of `incarnation`, the actor recovering this stream,
    // failed for `reason` (which names the persistence id and where): kept
    // until the next Restart, for FailureOf.
    void Fail(std::string reason, actor::ActorRef incarnation);
    // The journal's highest sequence number of this id, where the recovery
    // will end (0 until someone read it).
    void SetExpected(int64_t highest);

    int64_t sequence_nr() const { return sequence_nr_.load(); }
    int64_t expected() const { return expected_.load(); }
    bool finished() const { return finished_.load(); }

   private:
    RecoveryProgress* const owner_;
    std::atomic<int64_t> sequence_nr_{0};
    std::atomic<int64_t> expected_{0};
    std::atomic<bool> finished_{false};
    std::atomic<bool> failed_{false};  // a reason is in owner_->failures_
  };

  // `clock` stamps every report; it must outlive this object.
  explicit RecoveryProgress(
      const actor::Clock* clock = actor::SystemClock::Default());
  RecoveryProgress(const RecoveryProgress&) = delete;
  RecoveryProgress& operator=(const RecoveryProgress&) = delete;

  // The stream of `persistence_id`, made on first use. The reference stays
  // valid while this object exists.
  Stream& StreamOf(const std::string& persistence_id);
  // The stream, or nullptr if nothing was reported for it.
  const Stream* Find(const std::string& persistence_id) const;
  // Why the recovery of `incarnation`, an actor of `persistence_id`,
  // failed; nullopt if it did not, or if a new incarnation started since.
  // Keyed by the incarnation so that a message that never reached it (a
  // shard's drop, a later incarnation's stop) is not blamed on its
  // recovery.
  std::optional<std::string> FailureOf(
      const std::string& persistence_id,
      const actor::ActorRef& incarnation) const;

  // Something the waiting program waits for happened (an answer came):
  // as much a sign of life as a replayed event.
  void MarkProgress();

  // The sum of every stream's sequence number reached: one more for every
  // event replayed.
  int64_t total() const { return total_.load(); }
  // When anything was last reported (or this object was made).
  absl::Time last_progress() const;
  const actor::Clock& clock() const { return *clock_; }

 private:
  const actor::Clock* const clock_;
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> last_progress_nanos_;  // clock time, Unix nanos
  mutable base::Mutex mu_;
  // std::map: its nodes, and so the references StreamOf gives, never move.
  std::map<std::string, Stream, std::less<>> streams_ ABSL_GUARDED_BY(mu_);
  // Apart from the streams: few fail, and every account has a stream.
  struct Failure {
    actor::ActorRef incarnation;
    std::string reason;
  };
  absl::flat_hash_map<const Stream*, Failure> failures_ ABSL_GUARDED_BY(mu_);
};

// For a progress bar: the events replayed since this call. `progress` must
// outlive the function.
std::function<int64_t()> RecoveredSince(const RecoveryProgress& progress);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_RECOVERY_PROGRESS_H_
