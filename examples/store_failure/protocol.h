#ifndef CAIRN_EXAMPLES_STORE_FAILURE_PROTOCOL_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_PROTOCOL_H_

// The messages of the story: the command a counter takes, its answer, and
// what a counter tells its listener about its life. Each note is stamped
// with the wall-clock time it happened, so the listener can tell how long
// after the outage began it was.

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace cairn::examples::store_failure {

// Adds one to a counter. Answered with Acked once the event is stored.
struct Increment {};

// The answer to Increment, sent from the persist handler: the event with
// this sequence number is in the journal and the count includes it.
struct Acked {
  std::string id;  // the counter's persistence id
  int64_t count;
  int64_t sequence_nr;
};

// A counter incarnation started (PreStart): its recovery begins.
struct CounterStarted {
  std::string id;
  absl::Time at;
};

// The recovery completed (RecoveryCompleted) with `count` replayed.
struct CounterRecovered {
  std::string id;
  int64_t count;
  absl::Time at;
};

// The recovery failed (OnRecoveryFailure); the counter stops next.
struct CounterRecoveryFailed {
  std::string id;
  absl::Status cause;
  absl::Time at;
};

// A write failed (OnPersistFailure); the counter stops next.
struct CounterPersistFailed {
  std::string id;
  int64_t sequence_nr;
  absl::Status cause;
  absl::Time at;
};

// The incarnation stopped (PostStop).
struct CounterStopped {
  std::string id;
  absl::Time at;
};

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_PROTOCOL_H_
