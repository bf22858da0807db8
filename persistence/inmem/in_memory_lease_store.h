#ifndef CAIRN_PERSISTENCE_INMEM_IN_MEMORY_LEASE_STORE_H_
#define CAIRN_PERSISTENCE_INMEM_IN_MEMORY_LEASE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "persistence/storage/lease_store.h"

namespace cairn::persistence {

// Leases in this process's memory (LeaseStore's semantics, PostgresLeases'
// messages): for tests of lease holders, and for several actor systems in
// one process. Nothing checks the fences it grants but their holders: the
// in-memory and RocksDB journals ignore AtomicWrite::fence.
//
// Time is `now` (the clock seam: tests pass a ManualClock's Now, and
// expire holdings by advancing it); default: real time. Calls never block
// beyond a short mutex. Thread safety: every method from any thread.
class InMemoryLeaseStore final : public LeaseStore {
 public:
  explicit InMemoryLeaseStore(std::function<absl::Time()> now = absl::Now)
      : now_(std::move(now)) {}

  [[nodiscard]] absl::StatusOr<WriteFence> Acquire(const std::string& lease,
                                                   const std::string& owner,
                                                   absl::Duration ttl) override;
  [[nodiscard]] absl::Status Renew(const WriteFence& fence,
                                   absl::Duration ttl) override;
  [[nodiscard]] absl::Status Release(const WriteFence& fence) override;
  [[nodiscard]] absl::StatusOr<std::optional<LeaseHolding>> Holder(
      const std::string& lease) override;

 private:
  struct Holding {
    std::string owner;
    int64_t token = 0;  // the last granted; never reused
    absl::Time expires;
    bool released = false;
  };
  // Whether `h` is current for `fence` at `now`.
  static bool Current(const Holding& h, const WriteFence& fence,
                      absl::Time now);

  const std::function<absl::Time()> now_;
  base::Mutex mu_;
  std::map<std::string, Holding> leases_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_INMEM_IN_MEMORY_LEASE_STORE_H_
