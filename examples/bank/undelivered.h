#ifndef CAIRN_EXAMPLES_BANK_UNDELIVERED_H_
#define CAIRN_EXAMPLES_BANK_UNDELIVERED_H_

#include <cstdint>
#include <memory>

#include "actor/actor_system.h"
#include "examples/bank/recovery_progress.h"

namespace cairn::examples::bank {

// Answers every account command (protocol.h) that becomes a dead letter
// with an AccountReply kFailed to its sender, rather than leaving it
// waiting for an answer that never comes (Akka's advice: a dead-letter
// listener). Such a command took no effect. It was:
// - held by an Account whose recovery failed, or sent to it after: the
//   reply's reason is the recovery's (`progress`,
//   RecoveryProgress::FailureOf, for that very actor), which names the
//   persistence id and the sequence number;
// - held by an Account stopped otherwise (its shard lost its lease, the
//   system shut down), queued for one that had stopped, or dropped by its
//   shard (a full buffer, a hand-off): "was not delivered".
//
// `progress` may be null (no recovery's reason then); it is kept alive by
// the subscription. Returns the event stream's token
// (EventStream::UnsubscribeFunction); the subscription otherwise lasts
// as long as `system`.
int64_t AnswerUndeliveredCommands(
    actor::ActorSystem& system,
    std::shared_ptr<const RecoveryProgress> progress);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_UNDELIVERED_H_
