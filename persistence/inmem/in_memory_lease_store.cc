#include "persistence/inmem/in_memory_lease_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/mutex.h"

namespace cairn::persistence {

bool InMemoryLeaseStore::Current(const Holding& h, const WriteFence& fence,
                                 absl::Time now) {
  return !h.released && h.owner == fence.owner && h.token == fence.token &&
         now < h.expires;
}

absl::StatusOr<WriteFence> InMemoryLeaseStore::Acquire(const std::string& lease,
                                                       const std::string& owner,
                                                       absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("lease '", lease, "': the time to live must be positive"));
  }
  const absl::Time now = now_();
  base::MutexLock lock(&mu_);
  Holding& h = leases_[lease];
  const bool free =
      h.token == 0 || h.released || now >= h.expires || h.owner == owner;
  if (!free) {
    return absl::FailedPreconditionError(absl::StrCat(
        "lease '", lease, "' is held by '", h.owner, "' (fencing token ",
        h.token, ") until ", absl::FormatTime(h.expires)));
  }
  h.owner = owner;
  ++h.token;
  h.expires = now + ttl;
  h.released = false;
  return WriteFence{lease, owner, h.token};
}

absl::Status InMemoryLeaseStore::Renew(const WriteFence& fence,
                                       absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lease '", fence.lease, "': the time to live must be positive"));
  }
  const absl::Time now = now_();
  base::MutexLock lock(&mu_);
  auto it = leases_.find(fence.lease);
  if (it == leases_.end() || !Current(it->second, fence, now)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "lease '", fence.lease, "' of '", fence.owner, "' (fencing token ",
        fence.token, ") is lost: it expired or was granted again"));
  }
  it->second.expires = now + ttl;
  return absl::OkStatus();
}

absl::Status InMemoryLeaseStore::Release(const WriteFence& fence) {
  const absl::Time now = now_();
  base::MutexLock lock(&mu_);
  auto it = leases_.find(fence.lease);
  if (it != leases_.end() && Current(it->second, fence, now)) {
    it->second.released = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<LeaseHolding>> InMemoryLeaseStore::Holder(
    const std::string& lease) {
  const absl::Time now = now_();
  base::MutexLock lock(&mu_);
  auto it = leases_.find(lease);
  if (it == leases_.end()) return std::nullopt;
  const Holding& h = it->second;
  if (h.token == 0 || h.released || now >= h.expires) return std::nullopt;
  return LeaseHolding{h.owner, h.token, h.expires};
}

}  // namespace cairn::persistence
