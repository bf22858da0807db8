#ifndef CAIRN_PERSISTENCE_PERSISTENT_ACTOR_H_
#define CAIRN_PERSISTENCE_PERSISTENT_ACTOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "base/ring_queue.h"
#include "persistence/messages.h"
#include "persistence/persistence.h"
#include "persistence/retention_criteria.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/snapshot_store.h"
#include "serialization/payload.h"

namespace cairn::persistence {

namespace internal {
struct Protocol;
struct WriteOutcome;

// PersistentActor's bookkeeping, outside the class so that the names never
// hide a user's own types inside an actor's code.
using EventHandler = std::function<void(const serialization::Payload&)>;
struct RecoveryHandler {
  std::type_index type;
  EventHandler handler;
};
struct PendingInvocation {
  EventHandler handler;
  bool stashing;
};
// One entry of a write: an event (with the sender of its command) or a
// deferred handler call that loops back in order.
struct OutgoingEvent {
  serialization::Payload payload;
  int64_t sequence_nr = 0;  // 0: a deferred call, not written
  actor::ActorRef sender;
  int write_index = -1;  // which AtomicWrite of the batch
};
struct RecoveryRun;   // persistent_actor_protocol.h
struct RetentionRun;  // persistent_actor_protocol.h

enum class RecoveryPhase {
  kWaitingPermit,
  kLoadingSnapshot,
  kReplaying,
  kReadingHighest,
  kFailed,
  kProcessing,
};
}  // namespace internal

// An event-sourced actor (Akka.NET's ReceivePersistentActor). Its state is
// rebuilt on every start from a snapshot and the events after it; commands
// change it by persisting events:
//
// clang-format off
//   struct Deposit { int64_t amount; };    // a command
//   struct Deposited { int64_t amount; };  // its event
//
//   class Account final : public PersistentActor {
//    public:
//     explicit Account(std::string id) : id_(std::move(id)) {
//       Recover<Deposited>([this](const Deposited& e) { balance_ += e.amount; });
//       Command<Deposit>([this](const Deposit& d) {
//         Persist(Deposited{d.amount}, [this](const Deposited& e) {
//           balance_ += e.amount;
//           Sender().Tell(balance_);  // to the sender of the Deposit
//         });
//       });
//     }
//     std::string PersistenceId() const override { return "account-" + id_; }
//
//    private:
//     std::string id_;
//     int64_t balance_ = 0;
//   };
// clang-format on
//
// Events and snapshots go through the SerializationRegistry given to
// Persistence::Setup; a type it does not know is rejected
// (OnPersistRejected).
//
// The protocol, as Akka's:
// - On start (and after a restart) the actor waits for a recovery permit
//   (akka.persistence.max-concurrent-recoveries), loads the newest snapshot
//   matching GetRecovery(), offers it (Recover<SnapshotOffer>), replays the
//   events after it into the Recover<E> handlers in order, then delivers
//   RecoveryCompleted once. Commands that arrive meanwhile are stashed and
//   handled afterwards, in order.
// - Persist / PersistAll stash incoming commands until the events are
//   written and their handlers have run; PersistAsync / PersistAllAsync do
//   not. Handlers run in the order the calls were made, each with Sender()
//   the sender of the command that persisted it. Events persisted while a
//   write is in flight go in the next write, which goes out when no write
//   is in flight, or, for PersistAsync / DeferAsync calls, once 256 have
//   gathered (so several can be in flight; they are stored in order, and a
//   write behind a failed one fails too). Defer / DeferAsync run a
//   handler, without writing, after everything persisted before them.
//   The journal's and snapshot store's answers that drive the actor come
//   as control messages (actor/control_message.h), ahead of the commands
//   waiting.
// - A write that fails: OnPersistFailure, then the actor stops (put it under
//   a BackoffSupervisor to have it come back when the store does). A write
//   the journal rejects (e.g. the event cannot be serialized):
//   OnPersistRejected, the handler is skipped, the actor goes on and the
//   sequence number is not reused. A recovery that fails (the store fails, a
//   record is corrupt, a handler throws, nothing comes for one to two
//   recovery-event-timeouts): OnRecoveryFailure, then the actor stops.
// - One writer per persistence id: while a persistent actor lives, another
//   one with the same persistence id on the same journal fails its
//   recovery (naming the actor that holds the id). A journal also fails a
//   write that does not follow its stream's highest sequence number
//   (journal.h), so a writer in another process cannot overwrite events.
// - A PoisonPill waits behind the commands that recovery or a Persist
//   holds back, as the commands sent before it do, and stops the actor
//   once they are handled (Akka stops at once and drops them; this keeps
//   a passivated entity or a PoisonPill-stopped actor from losing them).
//   Handlers of PersistAsync/DeferAsync still pending then do not run.
// - Stash() inside a persist, persist-async or defer handler throws
//   IllegalActorStateException (stash in the command handler instead).
// - With no Recover<SnapshotOffer> handler, a snapshot is not used: every
//   event is replayed, and the offer is published as an UnhandledMessage.
// - A snapshot that cannot be loaded (corrupt, or its manifest unknown) is
//   passed over for the next older one, with a warning, and more events are
//   replayed (snapshot_store.h). If the events that replay needs were
//   deleted, the recovery fails (DataLoss naming the snapshot that could not
//   be read and the first event missing).
// - Snapshot retention (GetRetention, RetentionSnapshot; see
//   retention_criteria.h): a snapshot after every N-th event, then the
//   older snapshots (and optionally the events) are deleted. Its outcomes
//   reach the command handlers as those of SaveSnapshot, DeleteMessages and
//   DeleteSnapshots do (SaveSnapshotSuccess, DeleteMessagesSuccess, ...;
//   unhandled ones are published as UnhandledMessage).
//
// How it works, in one table: the states (internal::RecoveryPhase), what
// each message does in each, and which state follows. Every reply of the
// stores and the permitter is an internal::Protocol message through the
// mailbox, tagged with the incarnation it is for; a reply to an earlier
// incarnation is dropped in every state. (A permit free at start is taken
// in the same turn, right after the user's PreStart, not by message.) "Command"
// is any other message. Code: recovery in persistent_actor_recovery.cc, writes
// in persistent_actor_writes.cc, the routing below in persistent_actor.cc
// (AroundReceive).
//
//   state            message            does                        next
//   ---------------  -----------------  --------------------------  ----------
//   kWaitingPermit   permit granted     opens the plugins, asks     kLoading-
//                                       the journal to start the    Snapshot
//                                       recovery: the newest
//                                       snapshot, the highest
//                                       number and, if the journal
//                                       reads it, the first batch
//   kLoadingSnapshot recovery started   offers the snapshot, runs   kReplaying
//                                       the first batch as below,
//                                       or asks for it
//   kReplaying       replayed batch     asks for the next batch if  kReplaying
//                    (replay-batch-     the journal may have more,
//                    size events at     then runs each event's
//                    most)              Recover<E> handler
//                    the last batch     uses the highest number     kReading-
//                                       that came with the start    Highest
//   kReadingHighest  (at once)          RecoveryCompleted handler,  kProcessing
//                                       lets one command out
//   (the four above) command            stashed (internal stash)    same
//                    recovery tick      nothing came since the      same, or
//                                       last tick (the first one    kFailed
//                                       passes): fails recovery
//                    a store fails, a   OnRecoveryFailure, stops    kFailed
//                    handler throws, or
//                    after a snapshot
//                    fallback the
//                    events are deleted
//   kProcessing      command            stashed while a Persist /   kProcessing
//                                       PersistAll / Defer is
//                                       pending; else its handler,
//                                       then its events are sent
//                                       unless a write is in flight
//                                       (PersistAsync / Defer only:
//                                       or 256 have gathered; a
//                                       retention outcome starts
//                                       retention's deletes first)
//                    batch done         no write in flight; sends   kProcessing
//                                       what was persisted since
//                    written, looped    the next pending handler    kProcessing
//                                       (then a retention snapshot
//                                       if due); when no stashing
//                                       one is left, one command out
//                    rejected           OnPersistRejected, handler  kProcessing
//                                       skipped
//                    write failed       OnPersistFailure, stops     kFailed
//   kFailed          command            stashed (dead letters when  kFailed
//                                       the actor stops)
//                    any reply          dropped                     kFailed
//
// A restart (a handler threw) ends the incarnation in any state and starts
// the next one at kWaitingPermit; the stashed commands go back to the
// mailbox in order.
//
// Thread safety: as any Actor. The protected methods are for the actor's
// own handlers.
class PersistentActor : public actor::Actor {
 public:
  ~PersistentActor() override;

  // The id of this actor's event stream: non-empty, and the same for every
  // incarnation of the entity (an empty id fails the actor's start).
  virtual std::string PersistenceId() const = 0;

  // How to recover. Default: the newest snapshot, then every event after it.
  virtual Recovery GetRecovery() const { return Recovery{}; }

  // Snapshot retention. std::nullopt (the default): from config, the
  // journal plugin's `retention` block (persistence/reference.conf). Called
  // once per incarnation, when its recovery starts.
  virtual std::optional<RetentionCriteria> GetRetention() const {
    return std::nullopt;
  }
  // The snapshot retention saves: the actor's state after the handler of
  // the event just persisted (e.g. Payload::Of(state_)). std::nullopt (the
  // default): the actor has none, and retention does nothing for it.
  virtual std::optional<serialization::Payload> RetentionSnapshot() const {
    return std::nullopt;
  }

  // The plugins to use; empty (the default): akka.persistence.journal.plugin
  // and akka.persistence.snapshot-store.plugin.
  virtual std::string JournalPluginId() const { return ""; }
  virtual std::string SnapshotPluginId() const { return ""; }

  // The sequence number of the last event persisted or replayed (0: none).
  int64_t LastSequenceNr() const { return last_sequence_nr_; }
  // The sequence number of the snapshot recovered from (0: none).
  int64_t SnapshotSequenceNr() const { return snapshot_sequence_nr_; }
  bool IsRecovering() const {
    return state_ != internal::RecoveryPhase::kProcessing;
  }
  bool IsRecoveryFinished() const {
    return state_ == internal::RecoveryPhase::kProcessing;
  }

 protected:
  PersistentActor();

  // Handles replayed events of exactly type E, and the SnapshotOffer and
  // RecoveryCompleted messages. Declare in the constructor. An event no
  // handler takes is skipped. A handler that throws fails the recovery.
  template <typename E, typename F>
  void Recover(F&& handler) {
    recovery_handlers_.push_back(internal::RecoveryHandler{
        typeid(E),
        [h = std::forward<F>(handler)](
            const serialization::Payload& p) mutable { h(*p.As<E>()); }});
  }

  // Handles commands: Receive<C> under the name Akka.NET's persistent actors
  // use. Become/Unbecome switch command handlers as in any actor.
  template <typename C, typename F>
  void Command(F&& handler) {
    Receive<C>(std::forward<F>(handler));
  }
  template <typename C, typename P, typename F>
  void Command(P&& predicate, F&& handler) {
    Receive<C>(std::forward<P>(predicate), std::forward<F>(handler));
  }
  void CommandAny(std::function<void(const actor::AnyMessage&)> handler) {
    ReceiveAny(std::move(handler));
  }

  // Persists `event` and then runs handler(const E&), stashing commands
  // until it has run. Throws IllegalActorStateException during recovery.
  template <typename E, typename F>
  void Persist(E event, F&& handler) {
    PersistPayload(serialization::Payload::Of(std::move(event)),
                   Typed<E>(std::forward<F>(handler)), /*stashing=*/true);
  }
  // Persists `events` in one atomic write and runs the handler for each.
  template <typename E, typename F>
  void PersistAll(std::vector<E> events, F&& handler) {
    PersistAllPayloads(ToPayloads(std::move(events)),
                       Typed<E>(std::forward<F>(handler)), /*stashing=*/true);
  }
  // As Persist, but commands go on being handled while the write is in
  // flight.
  template <typename E, typename F>
  void PersistAsync(E event, F&& handler) {
    PersistPayload(serialization::Payload::Of(std::move(event)),
                   Typed<E>(std::forward<F>(handler)), /*stashing=*/false);
  }
  template <typename E, typename F>
  void PersistAllAsync(std::vector<E> events, F&& handler) {
    PersistAllPayloads(ToPayloads(std::move(events)),
                       Typed<E>(std::forward<F>(handler)), /*stashing=*/false);
  }
  // Runs handler(event) after the handlers of everything persisted before,
  // without writing it; at once if nothing is pending. Defer stashes
  // commands until then, DeferAsync does not.
  template <typename E, typename F>
  void Defer(E event, F&& handler) {
    DeferPayload(serialization::Payload::Of(std::move(event)),
                 Typed<E>(std::forward<F>(handler)), /*stashing=*/true);
  }
  template <typename E, typename F>
  void DeferAsync(E event, F&& handler) {
    DeferPayload(serialization::Payload::Of(std::move(event)),
                 Typed<E>(std::forward<F>(handler)), /*stashing=*/false);
  }

  // For a layer above whose events are of several types (persistence/
  // typed): Persist (one event) and PersistAll (one atomic write), the
  // events already type-erased (Payload::Of(event), or a Tagged), and
  // `handler` called with each as given. `stashing`: as Persist (true) or
  // PersistAsync (false).
  void PersistPayload(
      serialization::Payload event,
      std::function<void(const serialization::Payload&)> handler,
      bool stashing);
  void PersistAllPayloads(
      std::vector<serialization::Payload> events,
      std::function<void(const serialization::Payload&)> handler,
      bool stashing);

  // Saves a snapshot at LastSequenceNr(); the outcome comes back as a
  // SaveSnapshotSuccess or SaveSnapshotFailure command.
  template <typename T>
  void SaveSnapshot(T snapshot) {
    SaveSnapshotPayload(serialization::Payload::Of(std::move(snapshot)));
  }
  void SaveSnapshotPayload(serialization::Payload snapshot);
  // Outcome: DeleteSnapshotSuccess / DeleteSnapshotFailure.
  void DeleteSnapshot(int64_t sequence_nr);
  // Outcome: DeleteSnapshotsSuccess / DeleteSnapshotsFailure.
  void DeleteSnapshots(SnapshotSelectionCriteria criteria);
  // Deletes the events up to `to_sequence_nr` (kMaxSequenceNr: all so far).
  // Outcome: DeleteMessagesSuccess / DeleteMessagesFailure; a bound above
  // LastSequenceNr() fails without deleting anything.
  void DeleteMessages(int64_t to_sequence_nr);

  // Called before the actor stops because a write failed. `event` and
  // `sequence_nr` are the first event of the failed write. Default: logs.
  virtual void OnPersistFailure(const absl::Status& cause,
                                const serialization::Payload& event,
                                int64_t sequence_nr);
  // Called when the journal rejected an event; its handler does not run.
  // Default: logs a warning.
  virtual void OnPersistRejected(const absl::Status& cause,
                                 const serialization::Payload& event,
                                 int64_t sequence_nr);
  // Called with a replayed event that no Recover<E> handler takes.
  // Default: nothing, the event is skipped (as Akka's). One that throws
  // fails the recovery (persistence/typed does, for an event outside its
  // behaviour's Event).
  virtual void OnUnhandledRecoveryEvent(const serialization::Payload& event) {
    static_cast<void>(event);
  }
  // Called before the actor stops because its recovery failed. `event` is
  // the replayed event whose handler threw, or null. Default: logs.
  virtual void OnRecoveryFailure(const absl::Status& cause,
                                 const serialization::Payload* event);

 private:
  friend struct internal::Protocol;
  friend class AtLeastOnceDelivery;

  // For AtLeastOnceDelivery, which runs its own protocol inside this one: a
  // message it takes before the persistence protocol sees it (its timer
  // ticks, never stashed); a call after the last replayed event, before
  // RecoveryCompleted; a call when the incarnation ends (stop or restart).
  virtual bool InterceptMessage(const actor::MessageView&) { return false; }
  virtual void OnReplaySuccess() {}
  virtual void OnIncarnationEnd() {}

  template <typename E, typename F>
  static internal::EventHandler Typed(F&& handler) {
    return [h = std::forward<F>(handler)](
               const serialization::Payload& p) mutable { h(*p.As<E>()); };
  }
  template <typename E>
  static std::vector<serialization::Payload> ToPayloads(std::vector<E> events) {
    std::vector<serialization::Payload> payloads;
    payloads.reserve(events.size());
    for (E& e : events)
      payloads.push_back(serialization::Payload::Of(std::move(e)));
    return payloads;
  }

  void DeferPayload(serialization::Payload event,
                    internal::EventHandler handler, bool stashing);
  // The write being gathered, made on its first entry.
  internal::WriteOutcome& WriteBeingGathered();
  // Throws IllegalActorStateException unless commands are being processed.
  void RequireProcessing() const;
  // Adds `event` to the write being gathered, in the AtomicWrite that is
  // next (the caller counts it once all of its events are in).
  void GatherEvent(serialization::Payload event, internal::EventHandler handler,
                   bool stashing, const actor::ActorRef& sender);

  // Actor's steps.
  bool AroundReceive(const actor::MessageView& message) final;
  bool AroundPoisonPill() final;
  void AroundPreStart() final;
  void AroundPostStop() final;
  void AroundPreRestart(const std::exception_ptr& reason,
                        const actor::AnyMessage& message) final;
  void AroundPostRestart(const std::exception_ptr& reason) final;
  void BeforeStash() final;

  // Claims the id and asks for a recovery permit; true if one was free
  // (the caller goes on with OnPermitGranted), false if it comes later by
  // message or the recovery failed.
  bool StartRecovery();
  void OnPermitGranted();
  // The journal's answer to AsyncStartRecovery, with the first batch's
  // events if it read them.
  void OnRecoveryStarted(RecoveryStart& start, const ReplayPage& events);
  // `first_batch`: the first batch's outcome if the journal read it
  // (`events` its events), else null (it is asked for).
  void OnSnapshotLoaded(const LoadSnapshotResult& result,
                        const absl::Status* first_batch,
                        const ReplayPage& events);
  // Asks the journal for the next batch of events, from `from`, at most
  // replay-batch-size of them (a counted batch).
  void RequestReplay(int64_t from);
  // Asks for the events from `from` to `to`, at most `max`, as a page that
  // comes back tagged with `range_from` (0: a counted batch).
  void AskPage(int64_t from, int64_t to, int64_t max, int64_t range_from);
  // A page of the replay came: a counted batch (range_from 0) or a range.
  void OnReplayed(std::shared_ptr<const ReplayPage> page, absl::Status status,
                  int64_t range_from);
  void OnBatchReplayed(const ReplayPage& events, const absl::Status& status);
  // The replay goes on by range from `from` (after the first batch, when
  // replay_max does not bound it and the highest is known).
  void StartRanges(int64_t from);
  // Asks for ranges until two are in flight or the last one is asked.
  void RequestRanges();
  // Whether the range from `from` is the tail: the one that reaches the
  // highest, asked for up to the replay's bound.
  bool RangeIsTail(int64_t from) const;
  // Applies the page of the range at run_->applying_from; false when the
  // recovery ended (done or failed) or went back to counted batches.
  bool OnRangeReplayed(const ReplayPage& events, const absl::Status& status,
                       int64_t range_from);
  // Runs the recovery handlers over `events`, then fails the recovery if
  // `status` (the read's) or a deserialization failed; false when it
  // failed.
  bool ApplyReplayed(const ReplayPage& events, const absl::Status& status);
  // The replay is over: the highest read at the start finishes it.
  void EndReplay();
  void OnHighestRead(absl::StatusOr<int64_t> highest);
  void OnRecoveryTick();
  // After a fallback past an unreadable snapshot: fails the recovery if the
  // replay does not start right after the snapshot recovered from
  // (`first_replayed`: the first event's number; 0: none came although the
  // journal has events after it). False after failing it.
  bool CheckReplayFollowsSnapshot(int64_t first_replayed);
  void FailRecovery(const absl::Status& cause,
                    const serialization::Payload* event);
  // The Recover<E> handler for `payload`'s type; null if none.
  internal::RecoveryHandler* FindRecoveryHandler(
      const serialization::Payload& payload);
  // Runs the recovery handler for `payload`; false (after failing the
  // recovery) if it threw.
  bool RunRecoveryHandler(const serialization::Payload& payload,
                          const char* what);
  void FinishRecovery();
  void ReleaseRecoveryResources();
  void ReleasePersistenceId();

  // The fence this actor's writes, deletes and snapshot saves carry
  // (Persistence::SetWriteFence): none outside every fence scope;
  // FailedPrecondition, ending "nothing is `done`", while its scope holds
  // none.
  absl::StatusOr<std::optional<WriteFence>> CurrentFence(
      const char* done) const;
  // The reply to a write: runs the handler of each entry in order, each
  // with its command's sender, unless a system message comes first (the
  // rest goes back to the mailbox behind it).
  void OnWriteDone(const std::shared_ptr<internal::WriteOutcome>& outcome);
  // One entry of a write; false if the write failed (the actor stops).
  bool OnEntryDone(const internal::OutgoingEvent& entry,
                   const internal::WriteOutcome& outcome);
  void RunPersistHandler(internal::PendingInvocation& invocation,
                         const serialization::Payload& event);
  // Retention (persistent_actor_retention.cc): a snapshot after the event at
  // `sequence_nr` if it is due; the deletes a SaveSnapshotSuccess or the
  // retention's DeleteMessagesSuccess leads to, before the command handlers
  // get it.
  void SnapshotIfDue(int64_t sequence_nr);
  void OnRetentionOutcome(const actor::MessageView& message);
  void FlushBatch();
  // After user code ran (a command handler, a persist handler, the
  // RecoveryCompleted handler): sends what it persisted and, unless a
  // stashing persist is pending, lets the next stashed message out (all of
  // them if the code threw, as Akka does, so that they keep their order
  // whatever the supervisor decides).
  void AfterUserCode(bool threw);

  std::string Describe() const;

  std::vector<internal::RecoveryHandler> recovery_handlers_;
  const uint64_t instance_;  // tells this incarnation's journal replies apart
  std::string persistence_id_;
  std::string writer_uuid_;  // made on the first write (Akka's writerUuid)
  Journal* journal_ = nullptr;
  SnapshotStore* snapshot_store_ = nullptr;
  Persistence* persistence_ = nullptr;
  // The nearest write fence scope above this actor (found when it starts),
  // whose current fence every write, delete and snapshot save or delete
  // carries; null: none, all of them unfenced.
  std::shared_ptr<const WriteFenceScope> fence_scope_;

  internal::RecoveryPhase state_ = internal::RecoveryPhase::kWaitingPermit;
  bool holds_permit_ = false;  // or has asked for one
  bool claims_id_ = false;     // Persistence::ClaimPersistenceId
  // While recovering: what only a recovery needs (freed when it ends, so
  // that an idle actor does not keep it).
  std::unique_ptr<internal::RecoveryRun> run_;

  int64_t last_sequence_nr_ = 0;
  int64_t next_sequence_nr_ = 1;  // for the next event persisted
  int64_t snapshot_sequence_nr_ = 0;

  // Null while retention is off (the default): most actors pay 8 bytes.
  std::unique_ptr<internal::RetentionRun> retention_;

  base::RingQueue<internal::PendingInvocation> pending_invocations_;
  int pending_stashing_ = 0;
  // The next write, while something is gathered for it (null otherwise).
  std::shared_ptr<internal::WriteOutcome> batch_;
  int32_t writes_in_flight_ = 0;
  // While a persist, persist-async or defer handler runs: the message
  // being processed is the journal's reply, which Stash must not take.
  bool in_persist_handler_ = false;
};

}  // namespace cairn::persistence

#endif  // CAIRN_PERSISTENCE_PERSISTENT_ACTOR_H_
