#ifndef CAIRN_EXAMPLES_STORE_FAILURE_COUNTER_H_
#define CAIRN_EXAMPLES_STORE_FAILURE_COUNTER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "actor/actor_ref.h"
#include "persistence/persistent_actor.h"
#include "serialization/payload.h"

namespace cairn::examples::store_failure {

// An event-sourced counter: its count is the number of Incremented events
// in its journal, replayed on every start. An Increment is acknowledged
// (Acked, to the sender) only from the persist handler, so an
// acknowledged increment is a stored one.
//
// Each incarnation tells `listener` about its life (protocol.h): started,
// recovered, recovery failed, persist failed, stopped. That is how the
// story sees the restarts a BackoffSupervisor makes, as they happen.
//
// When the journal fails a write or a recovery, the counter stops (Akka's
// rule for persistent actors); put it under Backoff::OnStop to have it
// come back.
class Counter final : public persistence::PersistentActor {
 public:
  Counter(std::string id, actor::ActorRef listener);

  std::string PersistenceId() const override { return id_; }
  void PreStart() override;
  void PostStop() override;

 protected:
  void OnPersistFailure(const absl::Status& cause,
                        const serialization::Payload& event,
                        int64_t sequence_nr) override;
  void OnRecoveryFailure(const absl::Status& cause,
                         const serialization::Payload* event) override;

 private:
  const std::string id_;
  const actor::ActorRef listener_;
  int64_t count_ = 0;
};

}  // namespace cairn::examples::store_failure

#endif  // CAIRN_EXAMPLES_STORE_FAILURE_COUNTER_H_
