#ifndef CAIRN_CLUSTER_INTERNAL_CLUSTER_DAEMON_H_
#define CAIRN_CLUSTER_INTERNAL_CLUSTER_DAEMON_H_

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "actor/actor.h"
#include "actor/coordinated_shutdown.h"
#include "actor/future.h"
#include "actor/logging.h"
#include "cluster/internal/cluster_shared.h"
#include "persistence/storage/member_store.h"

namespace cairn::cluster::internal {

// /system/cluster: this member's side of the membership. It joins (writes
// its row), renews it, reads every row when the store announces a change
// and on a timer, turns the difference into events for its subscribers
// and the view Cluster reads, removes rows that ran out, and leaves in
// coordinated shutdown's cluster phases. The store's calls block: they
// run on the cluster's store thread (ClusterShared), their outcomes come
// back as messages.
class ClusterDaemon final : public actor::Actor {
 public:
  ClusterDaemon(std::shared_ptr<ClusterShared> shared,
                actor::LoggingAdapter log);
  ~ClusterDaemon() override;

  void PreStart() override;
  void PostStop() override;

 private:
  // A member as last read, and whether its subscribers were told it is
  // unreachable.
  struct Seen {
    Member member;
    bool unreachable = false;
  };

  // Runs `call(store)` on the store thread unless this daemon has
  // stopped, and tells it the message `call` returns (its outcome).
  template <typename Call>
  void OnStoreThread(Call call);
  // This member's row's key.
  std::string SelfAddress() const;
  int64_t SelfUid() const;

  // Joins until joined, then renews the row.
  void Renew();
  // Removes this member's row (the end of a leave), completing `done`.
  void RemoveOwnRow(actor::Promise<actor::Done> done);
  // Starts watching the store if no watch is on (the first attempt, or
  // one that failed), on the store thread.
  void EnsureWatch();
  // Reads every row (once more after the read in flight, if one is).
  void Read();
  void Apply(const persistence::MemberSnapshot& snapshot);
  void Publish(const actor::AnyMessage& event);
  void SendInitialState(const actor::ActorRef& to, InitialStateMode mode);
  void UpdateShared();
  // This member's row is gone while it runs.
  void Downed(const std::string& why);

  const std::shared_ptr<ClusterShared> shared_;
  const actor::LoggingAdapter log_;
  // Outcomes told after the daemon stopped go nowhere.
  const std::shared_ptr<std::atomic<bool>> stopped_ =
      std::make_shared<std::atomic<bool>>(false);
  // The store's watch, made and ended on the store thread (its end may
  // wait for a connection), and touched only there but for `attempting`.
  struct WatchSlot {
    std::unique_ptr<persistence::MemberWatch> watch;
    bool warned = false;  // of a failure, once until one works
    // An attempt is posted or running (set by the daemon, cleared on the
    // store thread).
    std::atomic<bool> attempting{false};
  };
  const std::shared_ptr<WatchSlot> watch_ = std::make_shared<WatchSlot>();
  bool joined_ = false;
  bool downed_ = false;
  bool leaving_ = false;   // coordinated shutdown's cluster phases began
  bool removing_ = false;  // its own Remove is posted: its row goes
  bool left_ = false;      // its row removed by its own leave
  // One call of each kind at a time on the store thread: while the store
  // is slow or down, ticks do not pile calls up behind it.
  bool renewing_ = false;
  bool reading_ = false;
  bool read_again_ = false;
  // Since when (the store's clock) this member's own row has been read
  // fresh without a failure between: it removes others' rows that ran out
  // only after member-ttl of that, so that after an outage of the store
  // (every row ran out) nobody removes the members that have not renewed
  // yet.
  std::optional<absl::Time> fresh_since_;
  std::map<std::string, Seen> members_;  // by address
  std::set<actor::ActorRef> subscribers_;
};

}  // namespace cairn::cluster::internal

#endif  // CAIRN_CLUSTER_INTERNAL_CLUSTER_DAEMON_H_
