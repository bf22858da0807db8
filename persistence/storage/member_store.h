#ifndef CAIRN_PERSISTENCE_STORAGE_MEMBER_STORE_H_
#define CAIRN_PERSISTENCE_STORAGE_MEMBER_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cairn::persistence {

// The members of a cluster, kept as rows in a store every process reaches
// (docs/design/cluster.md): the database is the source of truth, as
// Orleans keeps its membership table in the SQL database its users run;
// no gossip. Each process writes its own row when it joins and renews it;
// a row whose time ran out is a member that is down, which any member may
// then remove. Statuses are Akka's, for the states a row can be in: a
// removed member has no row.
//
// Implementations: PostgresMembers (the journal's database and schema,
// the server's clock, LISTEN/NOTIFY for changes) and InMemoryMemberStore
// (one process, for tests).
//
// Every call but Watch's callback may block (a round trip to a database):
// call it from a thread that may block, never from an actor's handler.
// Errors: InvalidArgument for an empty address, a zero uid or a
// non-positive ttl; FailedPrecondition when the row of (address, uid) is
// gone (removed, or replaced by another incarnation at that address);
// otherwise the store's own (Unavailable, DeadlineExceeded).
//
// Thread safety: every method may be called from any thread.

enum class MemberStatus {
  kUp,       // joined, renewing its row
  kLeaving,  // leaving gracefully: handing its shards off
  kExiting,  // done handing off; its row goes next
};

// "up", "leaving", "exiting": as stored, and in messages.
const char* MemberStatusName(MemberStatus status);

// One member's row.
struct MemberRecord {
  // Its system's address, "akka://name@host:port": the row's key.
  std::string address;
  // Its incarnation (the system's uid): a process started again at the
  // same address is another member, with another uid.
  int64_t uid = 0;
  // Akka's akka.cluster.roles, in the order given.
  std::vector<std::string> roles;
  MemberStatus status = MemberStatus::kUp;
  // When its row runs out, on the store's clock, unless renewed.
  absl::Time expires;

  bool operator==(const MemberRecord&) const = default;
};

// Every row, read at once.
struct MemberSnapshot {
  // Ordered by address; expired rows too (their members are down).
  std::vector<MemberRecord> members;
  // The store's clock when it read them: a row with expires <= now has
  // run out. One clock for every process.
  absl::Time now;
};

// Stops the calls of MemberStore::Watch when destroyed; waits for a call
// in progress to return, so it must not be destroyed from the callback.
class MemberWatch {
 public:
  virtual ~MemberWatch() = default;
};

class MemberStore {
 public:
  virtual ~MemberStore() = default;

  // Writes `member`'s row, status up, running out `ttl` from now (the
  // store's clock); `member.status` and `member.expires` are not read. A
  // row at the same address with another uid is replaced: that
  // incarnation is gone. Joining again with the same uid renews the row
  // and sets it up.
  [[nodiscard]] virtual absl::Status Join(const MemberRecord& member,
                                          absl::Duration ttl) = 0;

  // Extends the row of (address, uid) to `ttl` from now. FailedPrecondition
  // if it is gone: this incarnation was removed (its row ran out and a
  // peer removed it) and must not come back under its uid.
  [[nodiscard]] virtual absl::Status Renew(const std::string& address,
                                           int64_t uid, absl::Duration ttl) = 0;

  // Sets the status of the row of (address, uid). FailedPrecondition if it
  // is gone.
  [[nodiscard]] virtual absl::Status SetStatus(const std::string& address,
                                               int64_t uid,
                                               MemberStatus status) = 0;

  // Deletes the row of (address, uid): the end of a graceful leave. OK if
  // it is gone already, or is another incarnation's (left as it is).
  [[nodiscard]] virtual absl::Status Remove(const std::string& address,
                                            int64_t uid) = 0;

  // Deletes the row of (address, uid) if it has run out (store's clock):
  // a peer's verdict that the member is down. Whether it deleted it (false
  // when it was renewed meanwhile, or is gone).
  [[nodiscard]] virtual absl::StatusOr<bool> RemoveIfExpired(
      const std::string& address, int64_t uid) = 0;

  // Every row, and the store's clock.
  [[nodiscard]] virtual absl::StatusOr<MemberSnapshot> Read() = 0;

  // Calls `changed` after a row is written by Join, SetStatus, Remove or
  // RemoveIfExpired, from any process: on a thread of the store's (the
  // in-memory store: the thread that made the change, once the store's
  // lock is released), never concurrently with itself, so it should only
  // hand the news on (Tell an actor); not after Renew, which only moves
  // a row's expiry (every member renews every few seconds). A change may
  // be announced late, more than once, or lost (a connection that broke:
  // the store then calls once it is back): a watcher reads again on a
  // timer too. Until the returned MemberWatch is destroyed.
  [[nodiscard]] virtual absl::StatusOr<std::unique_ptr<MemberWatch>> Watch(
      std::function<void()> changed) = 0;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_MEMBER_STORE_H_
