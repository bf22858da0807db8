#ifndef CAIRN_ACTOR_ROUTING_RESIZER_H_
#define CAIRN_ACTOR_ROUTING_RESIZER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/routing/routee.h"
#include "hocon/config.h"

namespace cairn::actor::routing {

// Grows and shrinks a pool with its load, as Akka's DefaultResizer. Before
// every `messages_per_resize`-th message it routes (management messages do
// not count), the pool router measures the pressure on its routees and
// adds or removes routees, always staying within [lower_bound,
// upper_bound]:
//   - pressure: how many routees are busy. With `pressure_threshold` 1 a
//     routee is busy when its mailbox is scheduled and holds messages;
//     below 1 when it is scheduled at all (processing, or about to); above
//     1 when it holds at least that many queued messages. Only local
//     actors are seen (actor/mailbox_status.h); others never count.
//   - all routees busy: add ceil(rampup_rate * routees);
//   - fewer than backoff_threshold of them busy: remove
//     ceil(backoff_rate * routees) (none when either is 0), the routees
//     added last; each gets a PoisonPill, so the messages it holds are
//     processed before it stops.
// A pool with a resizer starts with its nr-of-instances brought within the
// bounds (Akka's initial resize), and does not stop when it has no
// routees left.
//
// Set fields by name: `DefaultResizer{.lower_bound = 2, .upper_bound = 15}`.
// A value type; the router keeps its own copy.
struct DefaultResizer {
  int lower_bound = 1;
  int upper_bound = 10;
  int pressure_threshold = 1;
  double rampup_rate = 0.2;
  double backoff_threshold = 0.3;
  double backoff_rate = 0.1;
  int messages_per_resize = 10;

  // InvalidArgument naming the field when a bound is negative, the upper
  // is below the lower, a rate is negative, backoff_threshold is above 1,
  // or messages_per_resize is below 1.
  absl::Status Validate() const;

  // Whether to resize before routing the message counted `counter` (the
  // first message routed is 1).
  bool IsTimeForResize(uint64_t counter) const {
    return counter % static_cast<uint64_t>(messages_per_resize) == 0;
  }
  // The number of routees to add (> 0) or remove (< 0) now.
  int Resize(const std::vector<Routee>& routees) const;
  // The busy routees, as above.
  int Pressure(const std::vector<Routee>& routees) const;
  // The change `pressure` asks of `capacity` routees, before the bounds.
  int Rampup(int pressure, int capacity) const;
  int Backoff(int pressure, int capacity) const;

  // The `resizer` section of a deployment (Akka's keys: enabled,
  // lower-bound, upper-bound, pressure-threshold, rampup-rate,
  // backoff-threshold, backoff-rate, messages-per-resize; absent ones take
  // the defaults above). nullopt when the section is absent or `enabled`
  // is not on (off by default, as in Akka: a section without
  // `enabled = on` resizes nothing); InvalidArgument naming the key when a
  // value is bad.
  static absl::StatusOr<std::optional<DefaultResizer>> FromConfig(
      const hocon::Config& deployment);
};

}  // namespace cairn::actor::routing

#endif  // CAIRN_ACTOR_ROUTING_RESIZER_H_
