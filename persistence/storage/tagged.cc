#include "persistence/storage/tagged.h"

#include <algorithm>
#include <utility>

namespace cairn::persistence {

void UnwrapTagged(PersistentRepr& repr) {
  while (const Tagged* tagged = repr.payload.As<Tagged>()) {
    for (const std::string& tag : tagged->tags) {
      if (std::find(repr.tags.begin(), repr.tags.end(), tag) ==
          repr.tags.end()) {
        repr.tags.push_back(tag);
      }
    }
    serialization::Payload event = tagged->event;
    repr.payload = std::move(event);
  }
}

}  // namespace cairn::persistence
