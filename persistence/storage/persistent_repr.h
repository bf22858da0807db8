#ifndef CAIRN_PERSISTENCE_STORAGE_PERSISTENT_REPR_H_
#define CAIRN_PERSISTENCE_STORAGE_PERSISTENT_REPR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "persistence/storage/write_fence.h"
#include "serialization/payload.h"

namespace cairn::persistence {

// One journaled event with its envelope (Akka's PersistentRepr).
struct PersistentRepr {
  std::string persistence_id;
  // 1, 2, 3, ... per persistence id.
  int64_t sequence_nr = 0;
  // The event. Serialized through the journal's SerializationRegistry.
  serialization::Payload payload;
  // The serializer manifest the event was stored with. Filled in on replay;
  // ignored on write (the registry decides it from the payload's type).
  std::string manifest;
  // The event adapter's manifest (Akka's PersistentRepr.manifest): what the
  // write side's EventAdapter::Manifest said of the event, stored as given
  // and handed back to EventAdapter::FromJournal on replay. For a type
  // without an adapter, stored as the writer set it (empty by default).
  std::string adapter_manifest;
  // Identifies the actor incarnation that wrote the event (Akka's
  // writerUuid); stored as given.
  std::string writer_uuid;
  // Milliseconds since the Unix epoch, set by the writer from its clock and
  // stored as given (the journal reads no clock).
  int64_t timestamp = 0;
  // Stored as given, for queries by tag.
  std::vector<std::string> tags;
};

// Events that are written all or nothing (Akka's AtomicWrite): one
// persistence id, sequence numbers contiguous and ascending, the first one
// following the stream's highest. A journal fails a call holding an
// AtomicWrite that breaks these rules (journal.h).
struct AtomicWrite {
  std::vector<PersistentRepr> events;
  // Optional: the lease the writer holds (journal.h says which journals
  // check it).
  std::optional<WriteFence> fence = std::nullopt;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_PERSISTENT_REPR_H_
