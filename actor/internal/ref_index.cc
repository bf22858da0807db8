#include "actor/internal/ref_index.h"

namespace cairn::actor::internal {

void ActorRefImpl::Destroy() const noexcept {
  // Out of the index before the memory goes: a lookup racing this sees a
  // count of zero (TryAddRef fails) or no entry, never a freed impl.
  if (index_ != nullptr) index_->Erase(this);
  delete this;
}

ActorRefImpl* RefIndex::Find(const std::string& key) const {
  base::MutexLock lock(&mu_);
  auto it = by_key_.find(key);
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
    // The old impl is on its way out; its Destroy will find it gone from
    // keys_ and leave the new entry alone.
    keys_.erase(it->second);
    it->second = impl;
  } else {
    by_key_.emplace(key, impl);
  }
  keys_.emplace(impl, key);
  impl->SetIndexed(shared_from_this());
  return impl;
}

void RefIndex::Insert(const std::string& key, ActorRefImpl* impl) {
  if (impl == nullptr) return;
  Enter(key, impl)->Release();
}

size_t RefIndex::size() const {
  base::MutexLock lock(&mu_);
  return by_key_.size();
}

void RefIndex::Erase(const ActorRefImpl* impl) {
  base::MutexLock lock(&mu_);
  auto key = keys_.find(impl);
  if (key == keys_.end()) return;
  by_key_.erase(key->second);
  keys_.erase(key);
}

}  // namespace cairn::actor::internal
