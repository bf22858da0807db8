#ifndef CAIRN_ACTOR_INTERNAL_REF_INDEX_H_
#define CAIRN_ACTOR_INTERNAL_REF_INDEX_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "actor/actor_ref.h"
#include "actor/internal/actor_ref_impl.h"
#include "base/mutex.h"

namespace cairn::actor::internal {

// Refs by a key (a path with its uid), held weakly: an entry lives exactly
// as long as some reference to its impl does, so one key always gives the
// same impl, and refs compare equal when they name the same actor (an
// ExternalRef reached twice), without the index keeping anything alive.
// An impl entered here calls Erase from its destructor, and shares
// ownership of the index (it may outlive the system that made it). Make
// it with std::make_shared. Thread safety: every method from any thread.
class RefIndex {
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
  // From an entered impl's destructor: its entry goes (unless a newer impl
  // replaced it already).
  void Erase(const ActorRefImpl* impl);

 private:
  // Enters `impl` (a reference held by the caller) unless a live one is
  // under `key`; returns the one entered or found, with a reference added.
  ActorRefImpl* Enter(const std::string& key, ActorRefImpl* impl);

  mutable base::Mutex mu_;
  absl::flat_hash_map<std::string, ActorRefImpl*> by_key_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const ActorRefImpl*, std::string> keys_
      ABSL_GUARDED_BY(mu_);
};

// Local refs that are not actors (an Ask's temporary ref, a test probe)
// by key, once handed to another system, so that a reply finds them: held
// until they report IsTerminated (an Ask answered or timed out, a probe
// gone), then dropped by a sweep that Insert runs whenever the map has
// doubled since the last one (amortized O(1); the map stays within about
// twice its live entries). Thread safety: every method from any thread.
class ExposedRefs {
 public:
  // The live ref under `key`, or NoSender.
  ActorRef Find(const std::string& key) const;
  // Enters `ref` under `key` (replacing a terminated one).
  void Insert(const std::string& key, const ActorRef& ref);
  size_t size() const;

 private:
  mutable base::Mutex mu_;
  absl::flat_hash_map<std::string, ActorRef> refs_ ABSL_GUARDED_BY(mu_);
  size_t sweep_at_ ABSL_GUARDED_BY(mu_) = 16;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_REF_INDEX_H_
