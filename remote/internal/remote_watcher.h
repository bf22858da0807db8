#ifndef CAIRN_REMOTE_INTERNAL_REMOTE_WATCHER_H_
#define CAIRN_REMOTE_INTERNAL_REMOTE_WATCHER_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "actor/actor_ref.h"
#include "actor/address.h"
#include "actor/clock.h"
#include "base/mutex.h"
#include "remote/internal/phi_accrual_failure_detector.h"

namespace cairn::remote::internal {

// Remote DeathWatch's bookkeeping for one system (Akka's RemoteWatcher):
// which local actors watch which actors of other systems (those systems
// are sent heartbeats, and when one is found unreachable its watchers are
// told), and which actors of other systems watch local ones (forgotten,
// and unwatched, when their system is gone).
//
// It decides nothing about connections: Tick says whom to heartbeat and
// who is unreachable, and the transport acts. Thread safety: every method
// from any thread; the Deliver* calls of actor/remote_transport.h are made
// outside its lock.
class RemoteWatcher {
 public:
  RemoteWatcher(PhiAccrualSettings detector,
                absl::Duration expected_response_after,
                const actor::Clock& clock);

  // A local `watcher` watches `subject`, an actor of `address`.
  void AddWatch(const actor::Address& address, const actor::ActorRef& subject,
                const actor::ActorRef& watcher);
  void RemoveWatch(const actor::Address& address,
                   const actor::ActorRef& subject,
                   const actor::ActorRef& watcher);

  // A `watcher` of `address` watches the local `watchee`, which its Watch
  // named `watchee_text`.
  void AddRemoteWatcher(const actor::Address& address,
                        const actor::ActorRef& watchee,
                        const actor::ActorRef& watcher,
                        std::string watchee_text);
  void RemoveRemoteWatcher(const actor::Address& address,
                           const actor::ActorRef& watchee,
                           const actor::ActorRef& watcher);
  // The text the watch of `watchee` by the remote `watcher` named it by,
  // forgotten (the watchee has stopped); nullopt for no such watch.
  std::optional<std::string> TakeRemoteWatcher(const actor::Address& address,
                                               const actor::ActorRef& watchee,
                                               const actor::ActorRef& watcher);

  // A heartbeat answer from `address`.
  void HeartbeatFrom(const actor::Address& address);

  struct Tick {
    std::vector<actor::Address> heartbeat;    // systems to send one to
    std::vector<actor::Address> unreachable;  // systems found gone
  };
  // Called every heartbeat-interval.
  Tick OnTick();

  // Forgets everything without telling anyone: the transport's shutdown,
  // once every actor has stopped (the refs held here would otherwise keep
  // the transport's state alive through the remote refs).
  void Clear();

  // `address` is gone (unreachable, shut down, restarted, quarantined):
  // its actors' local watchers get Terminated (address_terminated), and
  // its actors stop watching local ones. Idempotent.
  void AddressTerminated(const actor::Address& address);

 private:
  // (subject, watcher): local watchers of the peer's actors.
  using Watches =
      absl::flat_hash_set<std::pair<actor::ActorRef, actor::ActorRef>>;
  // (watchee, watcher) -> the watchee as the watch named it: the peer's
  // watchers of local actors.
  using RemoteWatchers =
      absl::flat_hash_map<std::pair<actor::ActorRef, actor::ActorRef>,
                          std::string>;
  struct Peer {
    Watches watches;
    RemoteWatchers remote_watchers;
    std::unique_ptr<PhiAccrualFailureDetector> detector;
    // When the first heartbeat went, for expected-response-after.
    absl::Time first_heartbeat = absl::InfiniteFuture();
  };

  const PhiAccrualSettings detector_settings_;
  const absl::Duration expected_response_after_;
  const actor::Clock& clock_;

  base::Mutex mu_;
  absl::flat_hash_map<actor::Address, Peer> peers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::remote::internal

#endif  // CAIRN_REMOTE_INTERNAL_REMOTE_WATCHER_H_
