#ifndef CAIRN_EXAMPLES_BANK_ACCOUNT_REGION_H_
#define CAIRN_EXAMPLES_BANK_ACCOUNT_REGION_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "actor/actor_ref.h"
#include "actor/actor_system.h"
#include "actor/any_message.h"
#include "actor/props.h"
#include "examples/bank/recovery_progress.h"
#include "hocon/config.h"
#include "sharding/entity_region.h"
#include "sharding/message_extractor.h"

namespace cairn::examples::bank {

// The accounts' region is started as /user/<kAccountsTypeName>.
inline constexpr char kAccountsTypeName[] = "accounts";

// Routes the account commands of protocol.h by their `account` field: the
// entity id is the account number in decimal ("42"). Anything else is for
// no entity (the region sends it to dead letters).
class AccountExtractor final : public sharding::MessageExtractor {
 public:
  std::optional<std::string> EntityId(
      const actor::AnyMessage& message) const override;
};

// The region's settings from `config` (akka.cluster.sharding: shards,
// idle passivation, the active-entity limit), with StopAccount as the stop
// message. InvalidArgument naming a key out of range.
absl::StatusOr<sharding::EntityRegionSettings> AccountRegionSettings(
    const hocon::Config& config);

// The accounts' region (sharding::EntityRegion): one Account (account.h)
// per account number, made on its first command. Send it the commands of
// protocol.h; each is answered with an AccountReply to its sender, if
// the system answers undelivered commands (undelivered.h) with the same
// `progress`: those an Account held when its recovery failed among them.
// `progress`, if given, hears how far every account's recovery gets.
// `settings` should come from AccountRegionSettings (a stop message other
// than StopAccount is not handled by the entities).
actor::Props AccountRegionProps(sharding::EntityRegionSettings settings,
                                std::shared_ptr<RecoveryProgress> progress);

// Starts it as /user/accounts, with its graceful stop in coordinated
// shutdown (sharding::EntityRegion::Start).
actor::ActorRef StartAccountRegion(actor::ActorSystem& system,
                                   sharding::EntityRegionSettings settings,
                                   std::shared_ptr<RecoveryProgress> progress);

}  // namespace cairn::examples::bank

#endif  // CAIRN_EXAMPLES_BANK_ACCOUNT_REGION_H_
