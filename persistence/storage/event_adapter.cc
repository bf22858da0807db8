#include "persistence/storage/event_adapter.h"

#include <utility>

#include "base/demangle.h"
#include "base/string_view.h"

namespace cairn::persistence {

std::string EventAdapter::Manifest(const serialization::Payload&) const {
  return "";
}

absl::StatusOr<serialization::Payload> EventAdapter::ToJournal(
    const serialization::Payload& event) const {
  return event;
}

absl::StatusOr<EventSeq> EventAdapter::FromJournal(
    const serialization::Payload& event, std::string_view) const {
  return EventSeq{event};
}

absl::Status EventAdapters::BindType(
    std::type_index type, std::shared_ptr<const EventAdapter> adapter) {
  if (adapter == nullptr) {
    return absl::InvalidArgumentError(base::StrCat(
        "event adapter for ", base::DemangledTypeName(type), ": null adapter"));
  }
  if (!adapters_.try_emplace(type, std::move(adapter)).second) {
    return absl::AlreadyExistsError(
        base::StrCat("type ", base::DemangledTypeName(type),
                     " already has an event adapter"));
  }
  return absl::OkStatus();
}

const EventAdapter* EventAdapters::For(std::type_index type) const {
  auto it = adapters_.find(type);
  return it == adapters_.end() ? nullptr : it->second.get();
}

}  // namespace cairn::persistence
