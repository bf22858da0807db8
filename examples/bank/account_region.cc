#include "examples/bank/account_region.h"

#include <cstdint>
#include <stdexcept>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "examples/bank/account.h"
#include "examples/bank/protocol.h"

namespace cairn::examples::bank {
namespace {

template <typename C>
std::optional<std::string> AccountOf(const actor::AnyMessage& message) {
  const C* command = message.As<C>();
  if (command == nullptr) return std::nullopt;
  return absl::StrCat(command->account);
}

sharding::EntityRegion::EntityProps EntityProps(
    std::shared_ptr<RecoveryProgress> progress) {
  return [progress = std::move(progress)](const std::string& id) {
    int64_t number = 0;
    if (!absl::SimpleAtoi(id, &number)) {
      // Ids come from AccountExtractor only.
      throw std::logic_error(
          absl::StrCat("account entity id '", id, "' is not a number"));
    }
    return actor::Props::Create<Account>(number, progress);
  };
}

}  // namespace

std::optional<std::string> AccountExtractor::EntityId(
    const actor::AnyMessage& message) const {
  for (auto of :
       {&AccountOf<OpenAccount>, &AccountOf<Deposit>, &AccountOf<Withdraw>,
        &AccountOf<GetBalance>, &AccountOf<TakeSnapshot>}) {
    if (std::optional<std::string> id = of(message)) return id;
  }
  return std::nullopt;
}

absl::StatusOr<sharding::EntityRegionSettings> AccountRegionSettings(
    const hocon::Config& config) {
  absl::StatusOr<sharding::EntityRegionSettings> settings =
      sharding::EntityRegionSettings::FromConfig(config);
  if (!settings.ok()) return settings.status();
  settings->stop_message = actor::AnyMessage::Of(StopAccount{});
  return settings;
}

actor::Props AccountRegionProps(sharding::EntityRegionSettings settings,
                                std::shared_ptr<RecoveryProgress> progress) {
  return sharding::EntityRegion::Props(
      kAccountsTypeName, EntityProps(std::move(progress)), std::move(settings),
      std::make_shared<AccountExtractor>());
}

actor::ActorRef StartAccountRegion(actor::ActorSystem& system,
                                   sharding::EntityRegionSettings settings,
                                   std::shared_ptr<RecoveryProgress> progress) {
  return sharding::EntityRegion::Start(
      system, kAccountsTypeName, EntityProps(std::move(progress)),
      std::move(settings), std::make_shared<AccountExtractor>());
}

}  // namespace cairn::examples::bank
