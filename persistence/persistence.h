#ifndef CAIRN_PERSISTENCE_PERSISTENCE_H_
#define CAIRN_PERSISTENCE_PERSISTENCE_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor_system.h"
#include "base/mutex.h"
#include "persistence/retention_criteria.h"
#include "persistence/storage/durable_state_store.h"
#include "persistence/storage/event_adapter.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/plugin_registry.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/serialization.h"

namespace cairn::persistence {

namespace internal {
class RecoveryPermitter;
class RecoveryWatchdog;
}  // namespace internal

// The write fence of an actor subtree (Persistence::SetWriteFence): what
// the writes, deletes and snapshot saves of the persistent actors below its
// scope carry now.
//
// Thread safety: every method from any thread (one small mutex).
class WriteFenceScope {
 public:
  explicit WriteFenceScope(std::string path) : path_(std::move(path)) {}
  WriteFenceScope(const WriteFenceScope&) = delete;
  WriteFenceScope& operator=(const WriteFenceScope&) = delete;

  // The scope actor's path, for messages.
  const std::string& path() const { return path_; }
  // The fence now; null while the scope holds none.
  std::shared_ptr<const WriteFence> Current() const;
  void Set(std::optional<WriteFence> fence);

 private:
  const std::string path_;
  mutable base::Mutex mu_;
  std::shared_ptr<const WriteFence> fence_ ABSL_GUARDED_BY(mu_);
};

// What an application gives persistence before its first persistent actor
// starts (Akka's serialization bindings and plugin classes, which C++ cannot
// name in a config file). Every member has a default, so a designated
// initializer names only what it sets: Setup({.serialization = registry}).
struct PersistenceSetup {
  // How events and snapshots are serialized. Null: a registry that knows
  // std::string only.
  std::shared_ptr<const serialization::SerializationRegistry> serialization =
      nullptr;
  // Registers plugins for this system only, besides those linked into the
  // program (plugin_provider.h), to be selected by id in
  // `akka.persistence.journal.plugin` or by an actor's JournalPluginId().
  // Optional.
  std::function<absl::Status(PluginRegistry&)> register_plugins = nullptr;
  // Event adapters (schema evolution, docs/SCHEMA_EVOLUTION.md) that a
  // journal plugin's config names: its `event-adapters { ALIAS = NAME }`
  // gives a key of this map where Akka gives a class name, and
  // `event-adapter-bindings { "MANIFEST" = ALIAS }` binds the adapter to
  // the type registered with that manifest in `serialization`. Optional.
  std::map<std::string, std::shared_ptr<const EventAdapter>, std::less<>>
      event_adapters = {};
  // Binds event adapters in code: called with each journal plugin's id
  // (resolved, e.g. "akka.persistence.journal.rocksdb") when its journal is
  // made, after config's bindings; a type bound twice is an error. A non-OK
  // status fails the journal (every call to it, naming the plugin).
  // Optional.
  std::function<absl::Status(std::string_view journal_plugin_id,
                             EventAdapters& adapters)>
      bind_event_adapters = nullptr;
};

// The persistence extension of an ActorSystem (Akka's Persistence(system)):
// the serialization registry, the journals and snapshot stores by plugin id
// (made on first use and shared by every persistent actor of the system),
// the recovery permits and the settings read from `akka.persistence`.
//
// The plugins are those linked into the program (each plugin package's
// `:registration` target, plugin_provider.h), configured from this system's
// settings when it is made. //persistence:default_plugins links the
// built-in ones, by the id that selects them:
//   akka.persistence.journal.rocksdb            events in RocksDB (the default)
//   akka.persistence.snapshot-store.rocksdb     snapshots in the same database
//   akka.persistence.journal.postgresql         events in PostgreSQL
//   akka.persistence.snapshot-store.postgresql  snapshots beside them
//   akka.persistence.journal.inmem              in memory, for tests
//   akka.persistence.snapshot-store.inmem
// The RocksDB database is `akka.persistence.journal.rocksdb.dir`. A plugin
// id that nothing registered fails JournalFor / SnapshotStoreFor with
// NotFound, naming the ids that are and the target to link.
//
// Lifetime: made by Get on first use; destroyed with the system, after
// every actor has stopped, closing the stores. Thread safety: every method
// from any thread.
class Persistence {
 public:
  explicit Persistence(actor::ActorSystem& system);
  ~Persistence();
  Persistence(const Persistence&) = delete;
  Persistence& operator=(const Persistence&) = delete;

  static Persistence& Get(actor::ActorSystem& system) {
    return system.GetExtension<Persistence>();
  }

  // Installs `setup`. FailedPrecondition once a journal or snapshot store
  // has been made (call it before starting persistent actors), or if it was
  // called before; otherwise what setup.register_plugins returns.
  [[nodiscard]] absl::Status Setup(PersistenceSetup setup);

  // The journal or snapshot store of `plugin_id` (empty: the configured
  // default). Returns at once: the plugin is made (RocksDB opened) on a
  // thread of its own, and the calls made meanwhile wait for it, so no
  // dispatcher thread waits for a database to open. A failure to make it
  // (e.g. the database cannot be opened) fails the calls that waited, and
  // is not remembered: the next call tries again, so an actor restarted
  // later finds a store that came back. NotFound for an unknown id. The
  // pointer stays valid while the system exists.
  absl::StatusOr<Journal*> JournalFor(std::string_view plugin_id);
  absl::StatusOr<SnapshotStore*> SnapshotStoreFor(std::string_view plugin_id);
  // The same for a durable state store (empty: akka.persistence.state.plugin;
  // FailedPrecondition if that is empty too).
  absl::StatusOr<DurableStateStore*> DurableStateStoreFor(
      std::string_view plugin_id);
  // akka.persistence.state.plugin (empty: none).
  const std::string& DefaultDurableStateStorePluginId() const {
    return default_durable_state_store_;
  }

  // What a recovery on a journal plugin reads from config: the plugin's
  // block, key by key falling back to
  // akka.persistence.journal-plugin-fallback (reference.conf).
  struct RecoverySettings {
    // `recovery-event-timeout`: how long a recovery may wait for the next
    // thing from its stores (checked every this long: it fails after one
    // to two of it).
    absl::Duration event_timeout;
    // `replay-batch-size`: how many events a recovery asks the journal for
    // at a time. It keeps at most two batches asked ahead of the one its
    // handlers run, so a recovering actor holds at most three, however
    // long its stream.
    // InvalidArgument naming the key unless it is at least 1.
    absl::StatusOr<int64_t> replay_batch_size;
    // `retention`: the snapshot retention of persistent actors that declare
    // none in code. InvalidArgument naming the key for a negative
    // snapshot-every or a keep-n-snapshots below 1 with snapshot-every on.
    absl::StatusOr<RetentionCriteria> retention;
  };
  // The settings of `journal_plugin_id` (empty: the default journal), read
  // the first time and then kept: the config does not change, and every
  // recovery needs them. The reference stays valid while the system
  // exists. Thread safe.
  const RecoverySettings& RecoverySettingsFor(
      std::string_view journal_plugin_id);

  // One writer per persistence id: claims `persistence_id` on the journal
  // `journal_plugin_id` (empty: the default) for the persistent actor
  // `holder`, until ReleasePersistenceId. OK if it is free or `holder`
  // holds it already; FailedPrecondition naming the actor that holds it
  // otherwise. Two live writers of one stream would each number events
  // from what they recovered and overwrite one another's. PersistentActor
  // claims its id when it starts recovering and releases it when it stops
  // (or before it restarts).
  [[nodiscard]] absl::Status ClaimPersistenceId(
      std::string_view journal_plugin_id, std::string_view persistence_id,
      const actor::ActorRef& holder);
  // Ends `holder`'s claim; nothing if it holds none.
  void ReleasePersistenceId(std::string_view journal_plugin_id,
                            std::string_view persistence_id,
                            const actor::ActorRef& holder);

  // Write fences per actor subtree (how a sharding shard makes its
  // entities' writes carry its lease, docs/SHARDING.md "Leases"):
  // SetWriteFence makes `scope` (an actor) a fence scope if it is not one
  // yet and sets the fence its descendants' writes carry from now on;
  // nullopt clears it. A persistent actor finds its nearest scope (the
  // closest ancestor that is one) when it starts (and restarts), and puts
  // that scope's current fence into each AtomicWrite it sends, each delete
  // of its events and each snapshot save or delete; while its scope holds
  // no fence, these fail (FailedPrecondition: OnPersistFailure,
  // DeleteMessagesFailure, SaveSnapshotFailure, DeleteSnapshotFailure,
  // DeleteSnapshotsFailure) without reaching the journal or snapshot
  // store: a scope without a fence has lost, or not yet got, the right to
  // write. An actor outside every scope writes without a fence. So a scope sets
  // its fence before it starts the actors below it. RemoveWriteFenceScope ends
  // `scope` (when it stops); nothing if it is none. A new actor at the same
  // path gets a new scope.
  void SetWriteFence(const actor::ActorRef& scope,
                     std::optional<WriteFence> fence);
  void RemoveWriteFenceScope(const actor::ActorRef& scope);
  // The nearest scope above `actor` (not itself), or null.
  std::shared_ptr<const WriteFenceScope> WriteFenceScopeOf(
      const actor::ActorRef& actor) const;

  internal::RecoveryPermitter& Permitter() { return *permitter_; }
  // Ticks the recovering actors (recovery-event-timeout).
  internal::RecoveryWatchdog& Watchdog() { return *watchdog_; }
  actor::ActorSystem& System() const { return system_; }

 private:
  absl::Status RegisterLinkedPlugins();
  // The journal of plugin `id`, with its event adapters (if any) around it.
  absl::StatusOr<std::unique_ptr<Journal>> MakeJournal(
      const std::string& id) const;
  std::string Resolve(std::string_view plugin_id, bool journal) const;
  RecoverySettings ReadRecoverySettings(const std::string& plugin_id) const;
  absl::StatusOr<int64_t> ReadReplayBatchSize(
      const std::string& plugin_id) const;
  absl::StatusOr<RetentionCriteria> ReadRetention(
      const std::string& plugin_id) const;

  actor::ActorSystem& system_;
  std::string default_journal_;
  std::string default_snapshot_store_;
  std::string default_durable_state_store_;
  absl::Duration fallback_recovery_timeout_;
  std::unique_ptr<internal::RecoveryPermitter> permitter_;
  std::unique_ptr<internal::RecoveryWatchdog> watchdog_;

  mutable base::Mutex mu_;
  bool set_up_ ABSL_GUARDED_BY(mu_) = false;
  bool used_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status registration_;  // of the linked plugins
  std::shared_ptr<const serialization::SerializationRegistry> serialization_;
  std::map<std::string, std::shared_ptr<const EventAdapter>, std::less<>>
      event_adapters_;
  std::function<absl::Status(std::string_view, EventAdapters&)>
      bind_event_adapters_;
  PluginRegistry plugins_;
  std::map<std::string, std::unique_ptr<Journal>, std::less<>> journals_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<SnapshotStore>, std::less<>>
      snapshot_stores_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<DurableStateStore>, std::less<>>
      durable_state_stores_ ABSL_GUARDED_BY(mu_);
  // Resolved journal plugin id -> persistence id -> the actor writing it.
  // Flat: a million entities claim a million ids, at ~60 bytes each. A lock
  // of its own: a claim's rehash does not hold up JournalFor.
  base::Mutex writers_mu_;
  absl::flat_hash_map<std::string,
                      absl::flat_hash_map<std::string, actor::ActorRef>>
      writers_ ABSL_GUARDED_BY(writers_mu_);
  // Write fence scopes by the scope actor's path (its elements joined by
  // '/'), with the actor (a new incarnation gets a new scope).
  mutable base::Mutex fence_mu_;
  std::map<std::string,
           std::pair<actor::ActorRef, std::shared_ptr<WriteFenceScope>>>
      fence_scopes_ ABSL_GUARDED_BY(fence_mu_);
  // RecoverySettingsFor's, by the id asked for (not resolved: the empty id
  // is the default's). Entries are never removed or replaced.
  std::map<std::string, std::unique_ptr<const RecoverySettings>, std::less<>>
      recovery_settings_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_PERSISTENCE_H_
