#ifndef CAIRN_PERSISTENCE_STORAGE_TAGGED_H_
#define CAIRN_PERSISTENCE_STORAGE_TAGGED_H_

#include <string>
#include <vector>

#include "persistence/storage/persistent_repr.h"
#include "serialization/payload.h"

namespace cairn::persistence {

// An event with the tags it is to be found by (Akka's Tagged): persist
// `Tagged{Payload::Of(event), {"deposits"}}`, or return one from an event
// adapter's ToJournal. What is stored is the event alone, with the tags in
// PersistentRepr::tags; a replay delivers the event, not the Tagged.
struct Tagged {
  serialization::Payload event;
  std::vector<std::string> tags;
};

// If `repr.payload` is a Tagged, replaces it by its event and adds its tags
// to repr.tags (each tag once, in the order first given). Anything else is
// left as it is. A Tagged inside a Tagged is unwrapped too.
void UnwrapTagged(PersistentRepr& repr);

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_TAGGED_H_
