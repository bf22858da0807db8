#ifndef CAIRN_ACTOR_INTERNAL_SELECTION_DELIVERY_H_
#define CAIRN_ACTOR_INTERNAL_SELECTION_DELIVERY_H_

#include <memory>
#include <string>
#include <vector>

#include "actor/any_message.h"

namespace cairn::actor::internal {

// A message on its way along an ActorSelection path. Each actor on the way
// takes the next element from its own mailbox (so children it created in
// its constructor are there) and passes it on, keeping the sender.
struct SelectionDelivery {
  std::shared_ptr<const std::vector<std::string>> elements;
  size_t next = 0;
  AnyMessage message;
};
template <>
inline constexpr bool kRuntimeMessage<SelectionDelivery> = true;

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_SELECTION_DELIVERY_H_
