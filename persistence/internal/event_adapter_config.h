#ifndef CAIRN_PERSISTENCE_INTERNAL_EVENT_ADAPTER_CONFIG_H_
#define CAIRN_PERSISTENCE_INTERNAL_EVENT_ADAPTER_CONFIG_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hocon/config.h"
#include "persistence/storage/event_adapter.h"
#include "serialization/serialization.h"

namespace cairn::persistence::internal {

// The adapters an application registered by name (PersistenceSetup).
using NamedEventAdapters =
    std::map<std::string, std::shared_ptr<const EventAdapter>, std::less<>>;
// Binds adapters in code for a journal plugin (PersistenceSetup).
using EventAdapterBinder =
    std::function<absl::Status(std::string_view plugin_id, EventAdapters&)>;

// The event adapters of the journal plugin `plugin_id`: its config block's
// `event-adapters` (alias = name in `named`) and `event-adapter-bindings`
// (a type's registered manifest in `serialization` = alias, or a list of
// one alias), then what `bind` (may be empty) adds in code. Null when none
// is bound. InvalidArgument naming the config key (and its origin) for an
// alias or a manifest nobody registered, or a value of the wrong kind;
// `bind`'s status (AlreadyExists for a type config bound already) with
// the plugin named.
absl::StatusOr<std::shared_ptr<const EventAdapters>> EventAdaptersOfPlugin(
    const hocon::Config& config, std::string_view plugin_id,
    const NamedEventAdapters& named,
    const serialization::SerializationRegistry& serialization,
    const EventAdapterBinder& bind);

}  // namespace cairn::persistence::internal

#endif  // CAIRN_PERSISTENCE_INTERNAL_EVENT_ADAPTER_CONFIG_H_
