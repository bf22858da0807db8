#ifndef CAIRN_PERSISTENCE_STORAGE_LEASE_STORE_H_
#define CAIRN_PERSISTENCE_STORAGE_LEASE_STORE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "persistence/storage/persistent_repr.h"

namespace cairn::persistence {

// Leases with fencing tokens: who may write for a group of entities (a
// shard), across processes (docs/POSTGRESQL.md, "Leases and fencing";
// docs/SHARDING.md, "Leases"). A holding is granted for a time to live and
// kept by renewing it before it runs out; each grant of a lease gets a
// fencing token above every earlier one. A holder's writes carry its
// WriteFence (AtomicWrite::fence), as do its deletes and snapshot saves
// and deletes; a journal or snapshot store that checks fences (journal.h,
// snapshot_store.h) applies them only while the holding is current.
//
// A holder renews well within the time to live (a third of it, say) and
// treats a failed renewal as the lease lost.
//
// Implementations: PostgresLeases (the journal's database, the server's
// clock) and InMemoryLeaseStore (one process, for tests).
//
// Every call may block (a round trip to a database): call it from a thread
// that may block, never from an actor's handler. Errors: FailedPrecondition
// when the lease is held by another owner, or the holding is no longer
// current (expired, or granted again since); otherwise the store's own
// (e.g. Unavailable, DeadlineExceeded).
//
// Thread safety: every method may be called from any thread.
// Who holds a lease now: its owner, the holding's fencing token, and when
// it runs out unless renewed (on the store's clock).
struct LeaseHolding {
  std::string owner;
  int64_t token = 0;
  absl::Time expires;
};

class LeaseStore {
 public:
  virtual ~LeaseStore() = default;

  // Grants `lease` to `owner` for `ttl` if it is free: never granted,
  // expired, released, or held by `owner` already (then a new holding with
  // a new token: the old one's writes stop being stored). The fence of the
  // new holding; FailedPrecondition naming the holder if another owner
  // holds it. `ttl` must be positive (InvalidArgument otherwise).
  [[nodiscard]] virtual absl::StatusOr<WriteFence> Acquire(
      const std::string& lease, const std::string& owner,
      absl::Duration ttl) = 0;

  // Extends the holding to `ttl` from now. FailedPrecondition if it is no
  // longer current: the lease is lost.
  [[nodiscard]] virtual absl::Status Renew(const WriteFence& fence,
                                           absl::Duration ttl) = 0;

  // Ends the holding now, so another owner can acquire the lease at once.
  // OK if it had ended already (nothing changes then).
  [[nodiscard]] virtual absl::Status Release(const WriteFence& fence) = 0;

  // The current holding of `lease`; nullopt when nobody holds it (never
  // granted, run out, or released). What routing to a shard's holder
  // reads: it may be stale by the time it is used (the holder may lose
  // the lease the next moment), which fencing makes harmless.
  [[nodiscard]] virtual absl::StatusOr<std::optional<LeaseHolding>> Holder(
      const std::string& lease) = 0;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_LEASE_STORE_H_
