#ifndef CAIRN_PERSISTENCE_INMEM_IN_MEMORY_MEMBER_STORE_H_
#define CAIRN_PERSISTENCE_INMEM_IN_MEMORY_MEMBER_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "base/mutex.h"
#include "persistence/storage/member_store.h"

namespace cairn::persistence {

// A cluster's members in this process's memory (MemberStore's semantics
// and messages): for tests, and for several actor systems in one process
// sharing one instance (by shared_ptr).
//
// Time is `now` (the clock seam: tests pass a ManualClock's Now and run
// rows out by advancing it); default: real time. Watch's callbacks run on
// the thread that made the change, after the store's lock is released.
// Calls never block beyond short mutexes. Thread safety: every method from
// any thread.
class InMemoryMemberStore final : public MemberStore {
 public:
  explicit InMemoryMemberStore(std::function<absl::Time()> now = absl::Now);
  ~InMemoryMemberStore() override;

  [[nodiscard]] absl::Status Join(const MemberRecord& member,
                                  absl::Duration ttl) override;
  [[nodiscard]] absl::Status Renew(const std::string& address, int64_t uid,
                                   absl::Duration ttl) override;
  [[nodiscard]] absl::Status SetStatus(const std::string& address, int64_t uid,
                                       MemberStatus status) override;
  [[nodiscard]] absl::Status Remove(const std::string& address,
                                    int64_t uid) override;
  [[nodiscard]] absl::StatusOr<bool> RemoveIfExpired(const std::string& address,
                                                     int64_t uid) override;
  [[nodiscard]] absl::StatusOr<MemberSnapshot> Read() override;
  [[nodiscard]] absl::StatusOr<std::unique_ptr<MemberWatch>> Watch(
      std::function<void()> changed) override;

 private:
  class Watchers;     // the live watches' callbacks
  class WatchHandle;  // what Watch returns

  // The row of (address, uid), or null; FailedPrecondition's text below.
  MemberRecord* Find(const std::string& address, int64_t uid)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::function<absl::Time()> now_;
  // Shared with each MemberWatch, which may outlive the store.
  const std::shared_ptr<Watchers> watchers_;
  base::Mutex mu_;
  std::map<std::string, MemberRecord> rows_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_INMEM_IN_MEMORY_MEMBER_STORE_H_
