#ifndef CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTER_H_
#define CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTER_H_

#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serialization/payload.h"

namespace cairn::persistence {

// What a stored event becomes when it is read (Akka's EventSeq): none (an
// obsolete event, dropped), one, or several (an event split in two). Every
// event of it is replayed with the stored event's sequence number.
using EventSeq = std::vector<serialization::Payload>;

// Converts events between the form the application works with and the form
// that is stored (Akka's EventAdapter), so that the stored form can change
// without the actors changing, and old stored events can be read as new
// ones. A journal plugin's adapters are bound by event type (EventAdapters);
// they run in the journal (EventAdaptingJournal), for writes and replays,
// after serialization has read the bytes and before it writes them.
// Serialization (SerializationRegistry, with older manifests) handles a
// change of bytes; an adapter handles a change of meaning: one stored event
// read as two, an event no longer wanted, a version of the meaning kept in
// the adapter manifest. See docs/SCHEMA_EVOLUTION.md.
//
// Every method has a default that leaves the event as it is, so an adapter
// overrides only the side it changes (Akka's ReadEventAdapter /
// WriteEventAdapter). Thread safety: called from the journal's threads,
// concurrently; implementations must be safe for that (stateless ones are)
// and must not throw: a failure is a status.
class EventAdapter {
 public:
  virtual ~EventAdapter() = default;

  // Stored with the event (PersistentRepr::adapter_manifest) and given back
  // to FromJournal: e.g. the version of the event's meaning. Empty by
  // default.
  virtual std::string Manifest(const serialization::Payload& event) const;

  // What is stored for `event` (serialized then by the registry). A non-OK
  // status rejects the write that carried the event (nothing of it is
  // stored; its persist is rejected with this status). Default: `event`.
  virtual absl::StatusOr<serialization::Payload> ToJournal(
      const serialization::Payload& event) const;

  // What a replay delivers for the stored `event`, written with
  // `manifest` (Manifest's value then). A non-OK status fails the replay
  // (and the recovery), naming the persistence id, sequence number and
  // manifest. Default: `event` alone.
  virtual absl::StatusOr<EventSeq> FromJournal(
      const serialization::Payload& event, std::string_view manifest) const;
};

// The event adapters of one journal plugin, by the exact C++ type they
// apply to (Akka's event-adapter-bindings; cairn matches exact types, as
// its serializers do). On write the adapter bound to the persisted event's
// type runs; on replay, the one bound to the stored event's type (the type
// serialization read): an adapter that stores another type is bound to
// both. An unbound type passes unchanged.
//
// Life cycle and thread safety: bind from one thread before the journal is
// made, then share as `std::shared_ptr<const EventAdapters>`; the const
// methods are safe from any thread.
class EventAdapters {
 public:
  template <typename T>
  [[nodiscard]] absl::Status Bind(std::shared_ptr<const EventAdapter> adapter) {
    return BindType(typeid(T), std::move(adapter));
  }

  // InvalidArgument for a null adapter; AlreadyExists if `type` has one
  // (one adapter per type: Akka combines several on read and picks one on
  // write, cairn asks for one that does both).
  [[nodiscard]] absl::Status BindType(
      std::type_index type, std::shared_ptr<const EventAdapter> adapter);

  // The adapter bound to `type`, or null.
  const EventAdapter* For(std::type_index type) const;

  bool empty() const { return adapters_.empty(); }

 private:
  absl::flat_hash_map<std::type_index, std::shared_ptr<const EventAdapter>>
      adapters_;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_STORAGE_EVENT_ADAPTER_H_
