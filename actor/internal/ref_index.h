#ifndef CAIRN_ACTOR_INTERNAL_REF_INDEX_H_
#define CAIRN_ACTOR_INTERNAL_REF_INDEX_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "actor/internal/actor_ref_impl.h"
#include "base/mutex.h"

namespace cairn::actor::internal {

// Refs by a key (a path with its uid), held weakly: an entry lives exactly
// as long as some reference to its impl does, so one key always gives the
// same impl, and refs compare equal when they name the same actor (an
// ExternalRef reached twice, a temp ref handed out twice), without the
// index keeping anything alive. Impls entered share ownership of the
// index (they may outlive the system that made it). Make it with
// std::make_shared. Thread safety: every method from any thread.
class RefIndex : public std::enable_shared_from_this<RefIndex> {
 public:
  RefIndex() = default;
  RefIndex(const RefIndex&) = delete;
  RefIndex& operator=(const RefIndex&) = delete;

  // The live impl under `key` with a reference added for the caller, or
  // nullptr.
  ActorRefImpl* Find(const std::string& key) const;
  // The live impl under `key`; if none, `make()`'s (a new impl, not yet
  // entered anywhere, never null), entered under `key`; either with a
  // reference added for the caller. `make` runs outside the index's lock
  // (it may take the caller's locks); when another thread entered one
  // meanwhile, that one is returned and `make()`'s destroyed.
  ActorRefImpl* FindOrInsert(const std::string& key,
                             const std::function<ActorRefImpl*()>& make);
  // Enters `impl` (live; the caller holds a reference) under `key` unless
  // a live impl is there already. An impl is entered in one index at most,
  // under one key.
  void Insert(const std::string& key, ActorRefImpl* impl);
  size_t size() const;

 private:
  friend class ActorRefImpl;  // Destroy erases
  void Erase(const ActorRefImpl* impl);
  // Enters `impl` (one reference added for the caller) unless a live one
  // is under `key`; returns the one entered or found, with a reference
  // for the caller.
  ActorRefImpl* Enter(const std::string& key, ActorRefImpl* impl);

  mutable base::Mutex mu_;
  absl::flat_hash_map<std::string, ActorRefImpl*> by_key_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const ActorRefImpl*, std::string> keys_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_REF_INDEX_H_
