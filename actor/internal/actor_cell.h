#ifndef CAIRN_ACTOR_INTERNAL_ACTOR_CELL_H_
#define CAIRN_ACTOR_INTERNAL_ACTOR_CELL_H_

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_context.h"
#include "actor/actor_ref.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/adaptive_mutex.h"
#include "actor/internal/compact_name.h"
#include "actor/internal/dispatcher.h"
#include "actor/internal/envelope.h"
#include "actor/internal/envelope_deque.h"
#include "actor/internal/message_queue.h"
#include "actor/internal/mpsc_queue.h"
#include "actor/internal/system_message.h"
#include "actor/logging.h"
#include "actor/mailbox_status.h"
#include "actor/props.h"
#include "actor/scheduler.h"
#include "actor/supervisor_strategy.h"
#include "actor/timer_scheduler.h"

namespace cairn::actor::internal {

// The cell whose actor is being constructed on this thread (read by Actor's
// constructor to find its context).
extern thread_local class ActorCell* constructing_cell_slot;

// Everything a mailbox needs that is set once, at creation.
struct MailboxSettings {
  std::unique_ptr<MessageQueue> custom_queue;  // null: the lock-free default
  int stash_capacity = -1;                     // -1: unbounded
};

// One actor: its mailbox, its place in the hierarchy, its lifecycle and
// supervision state, and the current Actor instance. The ActorRef of a local
// actor points here; the cell outlives the actor (refs keep it), and once
// the actor has stopped the cell forwards messages to dead letters.
//
// An idle actor costs this cell, its Actor and its parent's registry slot,
// so the cell keeps inline only what every actor uses; everything else
// (children, stashes, failure and restart state, receive timeout,
// DeathWatch, a custom mailbox) lives in one block made on first use.
//
// Threading: Deliver/SendSystem/Path from any thread. Everything else runs
// in Run(), on whichever dispatcher thread runs the mailbox (one at a time),
// except the children registry, which has its own lock because the system
// creates top-level actors from outside.
class ActorCell final : public ActorRefImpl, public ActorContext {
 public:
  ActorCell(ActorCell* parent, std::string_view name, int64_t uid, Props props,
            Dispatcher* dispatcher, MailboxSettings mailbox);
  ~ActorCell() override;

  // ActorRefImpl.
  void Deliver(Envelope* envelope) override;
  void SendSystem(SystemMessage* message) override;
  ActorPath Path() const override;
  bool IsTerminated() const override {
    return (status_.load(std::memory_order_acquire) & kClosed) != 0;
  }
  ActorSystem* GetSystem() const override { return dispatcher_->system(); }
  ActorCell* AsCell() override { return this; }
  // For LocalMailboxStatus (any thread); nullopt unless its Props asked for
  // it (WithMailboxStatus).
  std::optional<MailboxStatus> GetMailboxStatus() const;

  // ActorContext (which forwards here).
  ActorRef Self() const;
  ActorRef Sender() const;
  ActorRef Parent() const;
  ActorSystem& System() const { return *dispatcher_->system(); }
  // Until the actor has stopped (FinishTerminate releases them).
  const Props& GetProps() const { return props_; }
  ActorRef ActorOf(const Props& props, std::string_view name = "");
  void Stop(const ActorRef& ref);
  ActorRef Watch(const ActorRef& subject);
  ActorRef Unwatch(const ActorRef& subject);
  std::vector<ActorRef> GetChildren() const;
  ActorRef Child(std::string_view name) const;
  actor::ActorSelection ActorSelection(std::string_view path);
  void SetReceiveTimeout(std::optional<absl::Duration> timeout);
  std::optional<absl::Duration> GetReceiveTimeout() const;

  // Queues the Create system message. Called once, by the creator.
  void Start();
  // One turn of the mailbox (dispatcher threads only).
  void Run();
  // The dispatcher will not run this turn (it has stopped): a closed cell
  // drops its system messages now (see ReleaseCell). Then, as after Run,
  // the dispatcher's reference goes.
  void ReleaseUnrun();

  std::string_view name() const { return name_.view(); }
  int64_t uid() const { return uid_; }
  ActorCell* parent() const { return parent_; }

  // For Actor: the stash and the message being processed.
  // `internal`: into the protocol stash of Actor::StashInternally.
  void StashCurrent(bool internal = false);
  void Unstash(bool all);
  // The internal stash back in front of the mailbox: all of it, or its
  // oldest message unless one let out before is still waiting there.
  void UnstashInternal(bool all);
  // From now on Unstash puts the user's messages at the front of the
  // internal stash, from which the protocol lets them out in order with the
  // messages it stashed itself (PersistentActor, as Akka's Eventsourced).
  void UnstashThroughInternalStash() { flags_ |= kUnstashThroughInternal; }
  // For Actor::Timers(): the actor's timers, made on first use.
  TimerScheduler& Timers();
  // For Actor::SystemMessagePending(): a lifecycle or watch message waits
  // (not a control message, which is a user message on its way in front).
  bool SystemMessagePending() const;
  // For Actor::ProcessAgainFirst(): the message being processed goes to
  // the front of what comes before the mailbox.
  void ProcessCurrentAgainFirst();

  // The message the calling thread's actor is processing (nullptr if none).
  static const Envelope* Current();
  // From here on the calling thread's actor processes no message (PostStop
  // sees no sender).
  static void ForgetCurrent();
  // The cell whose actor is being constructed on this thread.
  static ActorCell* Constructing();

 private:
  // status_ bits.
  static constexpr uint32_t kScheduled = 1;
  static constexpr uint32_t kClosed = 2;
  static constexpr uint32_t kCustomMailbox = 4;  // set at creation only
  // Stopping: no new children. A bit here rather than a field of Extras, so
  // that an actor with no children stops without making Extras.
  static constexpr uint32_t kChildrenClosed = 8;
  // Props::WithMailboxStatus: Extras' enqueued and dequeued count (set at
  // creation only, with Extras made).
  static constexpr uint32_t kCountsMailbox = 16;
  // Props::WithSendRoute: Extras' send_route takes user messages first (set
  // at creation only, with Extras made).
  static constexpr uint32_t kRoutesOnSend = 32;
  // flags_ bits (mailbox thread only).
  static constexpr uint8_t kFailed = 1;  // waiting for the parent's decision
  static constexpr uint8_t kCurrentStashed = 2;
  static constexpr uint8_t kUnstashThroughInternal = 4;
  static constexpr uint8_t kHasSendRoute = 8;  // as kRoutesOnSend

  enum class Life : uint8_t {
    kNew,
    kAlive,
    kRecreating,
    kTerminating,
    kTerminated
  };

  struct ReceiveTimeoutState {
    absl::Duration timeout;
    absl::Time last_activity;
    Cancellable timer;
  };
  struct DeathWatchState {
    absl::flat_hash_set<ActorRef> watching;
    absl::flat_hash_set<ActorRef> terminated_queued;
    absl::flat_hash_set<ActorRef> watchers;
  };
  // The children registry: living children by name, each holding a
  // reference to its cell until it has terminated.
  struct ChildNameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const {
      return std::hash<std::string_view>()(name);
    }
    size_t operator()(const ActorCell* cell) const {
      return (*this)(cell->name());
    }
  };
  struct ChildNameEq {
    using is_transparent = void;
    // Looking up a child by its cell (the common case) rarely needs to
    // read another cell's name.
    bool operator()(const ActorCell* a, const ActorCell* b) const {
      return a == b || a->name() == b->name();
    }
    bool operator()(const ActorCell* a, std::string_view b) const {
      return a->name() == b;
    }
    bool operator()(std::string_view a, const ActorCell* b) const {
      return a == b->name();
    }
  };
  using ChildSet = absl::flat_hash_set<ActorCell*, ChildNameHash, ChildNameEq>;

  // What most actors never need. Made on first use, by the mailbox thread or
  // (for the children of a guardian) another thread, so the pointer to it
  // is atomic; once made it stays until the cell is destroyed.
  // A parent's bookkeeping of its children: made with its first child
  // (apart from Extras, which actors that stash or watch make too).
  struct Family {
    // Any thread, under `mu`.
    AdaptiveMutex mu;
    ChildSet children ABSL_GUARDED_BY(mu);
    // Children that have terminated, out of `children` so that their names
    // are free (for ActorOf) before any watcher hears of it, until this
    // cell handles their termination (each still holding its reference).
    // Lookups (Child, GetChildren) still find them until then.
    absl::flat_hash_set<ActorCell*> terminated_children ABSL_GUARDED_BY(mu);
    // Any thread, without `mu`: a generated name needs no look at the
    // others (no given name starts with `$`), so it is chosen before the
    // lock is taken.
    std::atomic<uint64_t> next_name{0};

    // Mailbox thread only.
    // Children told to stop that have not terminated yet.
    absl::flat_hash_set<const ActorCell*> stopping_children;
    // Children that have failed and been restarted.
    absl::flat_hash_map<const ActorCell*, ChildRestartStats> restart_stats;
  };

  struct Extras {
    // Made by EnsureFamily (any thread, as Extras); owned.
    std::atomic<Family*> family{nullptr};

    // Set before the cell is shared, then only read.
    std::unique_ptr<MessageQueue> custom_queue;
    // Not read through props_, which is released when the actor stops
    // while senders may still call it.
    std::shared_ptr<SendRoute> send_route;
    // With kCountsMailbox (Props::WithMailboxStatus): user messages ever
    // queued (incremented by senders before they queue) and ever taken from
    // the queue (written by the mailbox's consumer only): their difference
    // is the mailbox's size for GetMailboxStatus. 32 bits each, compared
    // modulo 2^32. Here rather than in the cell, which every actor pays
    // for: the cell's layout is the hot path of every send.
    std::atomic<uint32_t> enqueued{0};
    std::atomic<uint32_t> dequeued{0};

    // Mailbox thread only.
    std::unique_ptr<actor::SupervisorStrategy> strategy;
    std::exception_ptr failed_cause;
    AnyMessage failed_message;
    std::exception_ptr recreate_cause;
    std::unique_ptr<ReceiveTimeoutState> timeout;  // null: none set
    uint64_t receive_timeout_generation = 0;       // tells stale ticks apart
    std::unique_ptr<TimerScheduler> timers;        // null: none used yet
    std::unique_ptr<DeathWatchState> watch;
  };

  // Messages held apart from the mailbox (mailbox thread only): made by
  // the first Stash, freed when the actor goes idle with none, so that an
  // actor that stashed once (a persistent actor while it recovered) keeps
  // nothing for it.
  struct Stashes {
    EnvelopeDeque prepended;  // unstashed, ahead of the mailbox
    EnvelopeDeque stash;
    EnvelopeDeque internal_stash;
    // Messages the user unstashed while processing the current message,
    // when they go through the internal stash: the next one goes in
    // behind them.
    uint32_t unstashed_in_current = 0;

    bool empty() const {
      return prepended.empty() && stash.empty() && internal_stash.empty();
    }
  };
  Stashes& EnsureStashes() {
    if (stashes_ == nullptr) stashes_ = std::make_unique<Stashes>();
    return *stashes_;
  }

  // Scheduling.
  bool TrySchedule();
  bool CanProcessUserMessages() const {
    return life_ == Life::kAlive && suspend_count_ == 0;
  }
  bool HasSystemMessages() const {
    return system_head_.load(std::memory_order_acquire) != nullptr;
  }
  bool HasPrepended() const {
    return stashes_ != nullptr && !stashes_->prepended.empty();
  }
  Envelope* NextUserMessage();
  // The envelope to queue for a user message the send route declined (a
  // RoutedEnvelope for a decline with a token), or nullptr when it took it.
  // Takes `envelope`.
  Envelope* RouteOnSend(Envelope* envelope);
  void ToDeadLetters(Envelope* envelope);
  void DrainToDeadLetters();

  // System messages.
  void ProcessSystemMessages();
  void HandleSystemMessage(SystemMessage& m);
  void HandleSystemMessageWhenClosed(SystemMessage& m);

  // User messages.
  void Invoke(Envelope* envelope);
  bool HandleAutoReceived(const Payload& payload);
  void DeliverSelection(const struct SelectionDelivery& delivery);
  void HandleReceiveTimeoutTick(uint64_t generation);
  void ScheduleReceiveTimeoutTick(absl::Duration after);
  void CancelReceiveTimeout();
  // The envelope to process for a TimerMessage taken from the mailbox: the
  // timer's own message with no sender, or nullptr when the timer was
  // cancelled or replaced since it sent it. Disposes `timer_envelope`.
  Envelope* TakeTimerMessage(Envelope* timer_envelope);
  void CancelTimers();

  // Lifecycle (actor_cell_lifecycle.cc).
  void Create();
  void CreateActorInstance(const std::exception_ptr& restart_cause);
  void Recreate(const std::exception_ptr& cause);
  void FinishRecreate();
  void Terminate();
  void FinishTerminate();
  void Suspend();
  void Resume(bool ends_failure);
  // Suspends this actor and its children (except `escalating_child`, which
  // failed first and is suspended already) and tells the parent.
  void HandleInvokeFailure(std::exception_ptr cause,
                           const ActorCell* escalating_child = nullptr);
  void Publish(LogLevel level, const std::string& message);
  bool failed() const { return (flags_ & kFailed) != 0; }
  void ClearFailure();

  // Supervision (actor_cell_supervision.cc).
  void HandleFailed(SystemMessage& m);
  actor::SupervisorStrategy& Strategy();
  void RestartChild(ActorCell* child, const std::exception_ptr& cause,
                    bool suspend_first);
  void StopChild(ActorCell* child);
  bool IsStopping(const ActorCell* child) const {
    Family* f = family();
    return f != nullptr && f->stopping_children.contains(child);
  }

  // Children and DeathWatch (actor_cell_children.cc).
  // The living child `cell`, or nullptr when it is not (or no longer) ours.
  ActorCell* FindChild(const ActorCell* cell);
  std::vector<ActorCell*> ChildCells() const;
  bool AnyChildStopping() const {
    Family* f = family();
    return f != nullptr && !f->stopping_children.empty();
  }
  void StopAllChildren();
  void HandleDeathWatchNotification(SystemMessage& m);
  void HandleChildTerminated(ActorCell* child);
  // Called by a terminating child on its own thread, before it notifies
  // its watchers: its name is free for a new child from then on.
  void FreeChildName(ActorCell* child);
  void NotifyWatchersAndParent();
  static std::string NextChildName(Family& f);
  // akka.actor.debug.router-misconfiguration: a child that is no router at
  // a path the deployment config makes one.
  void WarnIfDeployedAsRouter(const ActorCell& child);
  DeathWatchState& Watches();

  Extras* extras() const { return extras_.load(std::memory_order_acquire); }
  Extras& EnsureExtras();
  Family* family() const {
    Extras* x = extras();
    return x == nullptr ? nullptr : x->family.load(std::memory_order_acquire);
  }
  Family& EnsureFamily();

  // Read by every thread that sends here.
  std::atomic<uint32_t> status_{0};
  ActorCell* const parent_;  // the cell holds a reference to it
  const CompactName name_;
  const int64_t uid_;
  Props props_;  // released when the actor has stopped
  Dispatcher* const dispatcher_;
  MpscQueue user_queue_;
  std::atomic<SystemMessage*> system_head_{nullptr};

  // Mailbox-thread state.
  std::unique_ptr<Actor> actor_;
  std::unique_ptr<Stashes> stashes_;
  int32_t stash_capacity_;  // -1: unbounded
  uint16_t suspend_count_ = 0;
  Life life_ = Life::kNew;
  uint8_t flags_ = 0;

  std::atomic<Extras*> extras_{nullptr};  // owned
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ACTOR_CELL_H_
