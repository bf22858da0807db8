#include "actor/internal/ref_index.h"

#include <algorithm>

namespace cairn::actor::internal {

ActorRefImpl* RefIndex::Find(const std::string& key) const {
  base::MutexLock lock(&mu_);
  auto it = by_key_.find(key);
  // A count of zero: its destructor is about to erase it.
  if (it == by_key_.end() || !it->second->TryAddRef()) return nullptr;
  return it->second;
}

ActorRefImpl* RefIndex::FindOrInsert(
    const std::string& key, const std::function<ActorRefImpl*()>& make) {
  if (ActorRefImpl* found = Find(key)) return found;
  ActorRefImpl* made = make();
  made->AddRef();  // held while entering
  ActorRefImpl* entered = Enter(key, made);
  // Entered: the caller's reference is Enter's. Lost a race to another
  // thread's impl: this drops the last reference to `made`.
  made->Release();
  return entered;
}

ActorRefImpl* RefIndex::Enter(const std::string& key, ActorRefImpl* impl) {
  base::MutexLock lock(&mu_);
  auto it = by_key_.find(key);
  if (it != by_key_.end() && it->second->TryAddRef()) return it->second;
  impl->AddRef();
  if (it != by_key_.end()) {
    // The old impl is on its way out; its destructor will find it gone
    // from keys_ and leave the new entry alone.
    keys_.erase(it->second);
    it->second = impl;
  } else {
    by_key_.emplace(key, impl);
  }
  keys_.emplace(impl, key);
  return impl;
}

void RefIndex::Erase(const ActorRefImpl* impl) {
  base::MutexLock lock(&mu_);
  auto key = keys_.find(impl);
  if (key == keys_.end()) return;
  by_key_.erase(key->second);
  keys_.erase(key);
}

ActorRef ExposedRefs::Find(const std::string& key) const {
  base::MutexLock lock(&mu_);
  auto it = refs_.find(key);
  if (it == refs_.end() || it->second.impl()->IsTerminated()) {
    return ActorRef();
  }
  return it->second;
}

void ExposedRefs::Insert(const std::string& key, const ActorRef& ref) {
  base::MutexLock lock(&mu_);
  refs_[key] = ref;
  if (refs_.size() < sweep_at_) return;
  absl::erase_if(refs_, [](const auto& entry) {
    return entry.second.impl()->IsTerminated();
  });
  sweep_at_ = std::max<size_t>(16, 2 * refs_.size());
}

size_t ExposedRefs::size() const {
  base::MutexLock lock(&mu_);
  return refs_.size();
}

}  // namespace cairn::actor::internal
