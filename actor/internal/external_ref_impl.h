#ifndef CAIRN_ACTOR_INTERNAL_EXTERNAL_REF_IMPL_H_
#define CAIRN_ACTOR_INTERNAL_EXTERNAL_REF_IMPL_H_

#include <memory>

#include "actor/actor_path.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/ref_index.h"
#include "actor/remote_transport.h"

namespace cairn::actor::internal {

// An ActorRef's view of an actor in another system: user messages,
// selections and DeathWatch go to the transport's ExternalRef. Made by
// ActorSystem::ExternalActorRef, which keeps one per path and uid.
class ExternalRefImpl final : public ActorRefImpl {
 public:
  // Entered in `index` by the caller (RefIndex::FindOrInsert); leaves it
  // when destroyed.
  ExternalRefImpl(ActorSystem* system, ActorPath path,
                  std::shared_ptr<ExternalRef> target,
                  std::shared_ptr<RefIndex> index)
      : system_(system),
        path_(std::move(path)),
        target_(std::move(target)),
        index_(std::move(index)) {}
  ~ExternalRefImpl() override { index_->Erase(this); }

  void Deliver(Envelope* envelope) override;
  void SendSystem(SystemMessage* message) override;
  ActorPath Path() const override { return path_; }
  bool IsTerminated() const override { return target_->IsTerminated(); }
  ActorSystem* GetSystem() const override { return system_; }

 private:
  ActorSystem* const system_;
  const ActorPath path_;
  const std::shared_ptr<ExternalRef> target_;
  const std::shared_ptr<RefIndex> index_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_EXTERNAL_REF_IMPL_H_
