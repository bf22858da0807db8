#include "persistence/inmem/in_memory_member_store.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace cairn::persistence {
namespace {

absl::Status CheckMember(const std::string& address, int64_t uid) {
  if (address.empty()) return absl::InvalidArgumentError("empty address");
  if (uid == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("member ", address, ": uid 0"));
  }
  return absl::OkStatus();
}

absl::Status CheckTtl(absl::Duration ttl) {
  if (ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ttl must be positive, not ", absl::FormatDuration(ttl)));
  }
  return absl::OkStatus();
}

absl::Status Gone(const std::string& address, int64_t uid) {
  return absl::FailedPreconditionError(
      absl::StrCat("member ", address, " uid ", uid,
                   " has no row: removed, or replaced by another incarnation"));
}

}  // namespace

// The callbacks of the live watches. Each is called under its own mutex,
// so never concurrently with itself, and a watch's end waits for a call in
// progress.
class InMemoryMemberStore::Watchers {
 public:
  struct Entry {
    base::Mutex mu;
    std::function<void()> changed ABSL_GUARDED_BY(mu);
  };

  std::shared_ptr<Entry> Add(std::function<void()> changed) {
    auto entry = std::make_shared<Entry>();
    {
      base::MutexLock lock(&entry->mu);
      entry->changed = std::move(changed);
    }
    base::MutexLock lock(&mu_);
    entries_.push_back(entry);
    return entry;
  }

  void Drop(const std::shared_ptr<Entry>& entry) {
    {
      base::MutexLock lock(&mu_);
      std::erase(entries_, entry);
    }
    base::MutexLock lock(&entry->mu);  // waits for a call in progress
    entry->changed = nullptr;
  }

  void CallAll() {
    std::vector<std::shared_ptr<Entry>> entries;
    {
      base::MutexLock lock(&mu_);
      entries = entries_;
    }
    for (const std::shared_ptr<Entry>& entry : entries) {
      base::MutexLock lock(&entry->mu);
      if (entry->changed) entry->changed();
    }
  }

 private:
  base::Mutex mu_;
  std::vector<std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

class InMemoryMemberStore::WatchHandle final : public MemberWatch {
 public:
  WatchHandle(std::shared_ptr<Watchers> watchers,
              std::shared_ptr<Watchers::Entry> entry)
      : watchers_(std::move(watchers)), entry_(std::move(entry)) {}
  ~WatchHandle() override { watchers_->Drop(entry_); }

 private:
  const std::shared_ptr<Watchers> watchers_;
  const std::shared_ptr<Watchers::Entry> entry_;
};

InMemoryMemberStore::InMemoryMemberStore(std::function<absl::Time()> now)
    : now_(std::move(now)), watchers_(std::make_shared<Watchers>()) {}

InMemoryMemberStore::~InMemoryMemberStore() = default;

MemberRecord* InMemoryMemberStore::Find(const std::string& address,
                                        int64_t uid) {
  auto it = rows_.find(address);
  return it == rows_.end() || it->second.uid != uid ? nullptr : &it->second;
}

absl::Status InMemoryMemberStore::Join(const MemberRecord& member,
                                       absl::Duration ttl) {
  if (absl::Status s = CheckMember(member.address, member.uid); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckTtl(ttl); !s.ok()) return s;
  {
    base::MutexLock lock(&mu_);
    MemberRecord row = member;
    row.status = MemberStatus::kUp;
    row.expires = now_() + ttl;
    rows_[member.address] = std::move(row);
  }
  watchers_->CallAll();
  return absl::OkStatus();
}

absl::Status InMemoryMemberStore::Renew(const std::string& address, int64_t uid,
                                        absl::Duration ttl) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  if (absl::Status s = CheckTtl(ttl); !s.ok()) return s;
  base::MutexLock lock(&mu_);
  MemberRecord* row = Find(address, uid);
  if (row == nullptr) return Gone(address, uid);
  row->expires = now_() + ttl;
  return absl::OkStatus();
}

absl::Status InMemoryMemberStore::SetStatus(const std::string& address,
                                            int64_t uid, MemberStatus status) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  {
    base::MutexLock lock(&mu_);
    MemberRecord* row = Find(address, uid);
    if (row == nullptr) return Gone(address, uid);
    row->status = status;
  }
  watchers_->CallAll();
  return absl::OkStatus();
}

absl::Status InMemoryMemberStore::Remove(const std::string& address,
                                         int64_t uid) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  {
    base::MutexLock lock(&mu_);
    if (Find(address, uid) == nullptr) return absl::OkStatus();
    rows_.erase(address);
  }
  watchers_->CallAll();
  return absl::OkStatus();
}

absl::StatusOr<bool> InMemoryMemberStore::RemoveIfExpired(
    const std::string& address, int64_t uid) {
  if (absl::Status s = CheckMember(address, uid); !s.ok()) return s;
  {
    base::MutexLock lock(&mu_);
    MemberRecord* row = Find(address, uid);
    if (row == nullptr || row->expires > now_()) return false;
    rows_.erase(address);
  }
  watchers_->CallAll();
  return true;
}

absl::StatusOr<MemberSnapshot> InMemoryMemberStore::Read() {
  base::MutexLock lock(&mu_);
  MemberSnapshot snapshot;
  snapshot.now = now_();
  for (const auto& [address, row] : rows_) snapshot.members.push_back(row);
  return snapshot;
}

absl::StatusOr<std::unique_ptr<MemberWatch>> InMemoryMemberStore::Watch(
    std::function<void()> changed) {
  return std::make_unique<WatchHandle>(watchers_,
                                       watchers_->Add(std::move(changed)));
}

}  // namespace cairn::persistence
