#include "remote/internal/remote_watcher.h"

#include <algorithm>
#include <utility>

#include "actor/remote_transport.h"

namespace cairn::remote::internal {

RemoteWatcher::RemoteWatcher(PhiAccrualSettings detector,
                             absl::Duration expected_response_after,
                             const actor::Clock& clock)
    : detector_settings_(std::move(detector)),
      expected_response_after_(expected_response_after),
      clock_(clock) {}

void RemoteWatcher::AddWatch(const actor::Address& address,
                             const actor::ActorRef& subject,
                             const actor::ActorRef& watcher) {
  base::MutexLock lock(&mu_);
  peers_[address].watches.emplace(subject, watcher);
}

void RemoteWatcher::RemoveWatch(const actor::Address& address,
                                const actor::ActorRef& subject,
                                const actor::ActorRef& watcher) {
  base::MutexLock lock(&mu_);
  auto it = peers_.find(address);
  if (it == peers_.end()) return;
  it->second.watches.erase(std::make_pair(subject, watcher));
}

void RemoteWatcher::AddRemoteWatcher(const actor::Address& address,
                                     const actor::ActorRef& watchee,
                                     const actor::ActorRef& watcher,
                                     std::string watchee_text) {
  base::MutexLock lock(&mu_);
  peers_[address].remote_watchers.try_emplace(std::make_pair(watchee, watcher),
                                              std::move(watchee_text));
}

void RemoteWatcher::RemoveRemoteWatcher(const actor::Address& address,
                                        const actor::ActorRef& watchee,
                                        const actor::ActorRef& watcher) {
  (void)TakeRemoteWatcher(address, watchee, watcher);
}

std::optional<std::string> RemoteWatcher::TakeRemoteWatcher(
    const actor::Address& address, const actor::ActorRef& watchee,
    const actor::ActorRef& watcher) {
  base::MutexLock lock(&mu_);
  auto it = peers_.find(address);
  if (it == peers_.end()) return std::nullopt;
  auto node =
      it->second.remote_watchers.extract(std::make_pair(watchee, watcher));
  if (node.empty()) return std::nullopt;
  return std::move(node.mapped());
}

void RemoteWatcher::HeartbeatFrom(const actor::Address& address) {
  base::MutexLock lock(&mu_);
  auto it = peers_.find(address);
  if (it == peers_.end() || it->second.detector == nullptr) return;
  it->second.detector->Heartbeat();
}

RemoteWatcher::Tick RemoteWatcher::OnTick() {
  Tick tick;
  const absl::Time now = clock_.Now();
  base::MutexLock lock(&mu_);
  for (auto it = peers_.begin(); it != peers_.end();) {
    Peer& peer = it->second;
    if (peer.watches.empty()) {
      // Nobody here watches it: no heartbeats, and a fresh detector if
      // it is watched again.
      peer.detector.reset();
      peer.first_heartbeat = absl::InfiniteFuture();
      if (peer.remote_watchers.empty()) {
        peers_.erase(it++);
        continue;
      }
      ++it;
      continue;
    }
    if (peer.detector == nullptr) {
      peer.detector = std::make_unique<PhiAccrualFailureDetector>(
          detector_settings_, clock_);
      peer.first_heartbeat = now;
    } else if (!peer.detector->IsMonitoring() &&
               now - peer.first_heartbeat >= expected_response_after_) {
      // No answer yet: start counting as if one had come, so a system
      // that never answers is found unreachable too (as Akka does).
      peer.detector->Heartbeat();
    }
    if (!peer.detector->IsAvailable()) {
      tick.unreachable.push_back(it->first);
    } else {
      tick.heartbeat.push_back(it->first);
    }
    ++it;
  }
  return tick;
}

void RemoteWatcher::Clear() {
  absl::flat_hash_map<actor::Address, Peer> gone;
  {
    base::MutexLock lock(&mu_);
    gone.swap(peers_);
  }
  // Released outside the lock: a ref's last release may reach here again.
}

void RemoteWatcher::AddressTerminated(const actor::Address& address) {
  Peer gone;
  {
    base::MutexLock lock(&mu_);
    auto it = peers_.find(address);
    if (it == peers_.end()) return;
    gone = std::move(it->second);
    peers_.erase(it);
  }
  for (const auto& [subject, watcher] : gone.watches) {
    actor::DeliverDeathWatchNotification(watcher, subject,
                                         /*existence_confirmed=*/false,
                                         /*address_terminated=*/true);
  }
  for (const auto& [refs, text] : gone.remote_watchers) {
    actor::DeliverUnwatch(refs.first, refs.second);
  }
}

}  // namespace cairn::remote::internal
