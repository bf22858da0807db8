#ifndef CAIRN_ACTOR_INTERNAL_ACTOR_CELL_H_
#define CAIRN_ACTOR_INTERNAL_ACTOR_CELL_H_

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_context.h"
#include "actor/actor_ref.h"
#include "actor/internal/actor_ref_impl.h"
#include "actor/internal/dispatcher.h"
#include "actor/internal/envelope.h"
#include "actor/internal/envelope_deque.h"
#include "actor/internal/message_queue.h"
#include "actor/internal/mpsc_queue.h"
#include "actor/internal/system_message.h"
#include "actor/logging.h"
#include "actor/props.h"
#include "actor/scheduler.h"
#include "actor/supervisor_strategy.h"

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
// Threading: Deliver/SendSystem/Path from any thread. Everything else runs
// in Run(), on whichever dispatcher thread runs the mailbox (one at a time),
// except the children registry, which has its own lock because the system
// creates top-level actors from outside.
class ActorCell final : public ActorRefImpl, public ActorContext {
 public:
  ActorCell(ActorSystem* system, ActorCell* parent, std::string name,
            int64_t uid, Props props, Dispatcher* dispatcher,
            MailboxSettings mailbox);
  ~ActorCell() override;

  // ActorRefImpl.
  void Deliver(Envelope* envelope) override;
  void SendSystem(SystemMessage* message) override;
  ActorPath Path() const override;
  bool IsTerminated() const override {
    return (status_.load(std::memory_order_acquire) & kClosed) != 0;
  }
  ActorSystem* GetSystem() const override { return system_; }
  ActorCell* AsCell() override { return this; }

  // ActorContext.
  ActorRef Self() const override;
  ActorRef Sender() const override;
  ActorRef Parent() const override;
  ActorSystem& System() const override;
  const Props& GetProps() const override { return props_; }
  ActorRef ActorOf(const Props& props, std::string_view name = "") override;
  void Stop(const ActorRef& ref) override;
  ActorRef Watch(const ActorRef& subject) override;
  ActorRef Unwatch(const ActorRef& subject) override;
  std::vector<ActorRef> GetChildren() const override;
  ActorRef Child(std::string_view name) const override;
  actor::ActorSelection ActorSelection(std::string_view path) override;
  void SetReceiveTimeout(std::optional<absl::Duration> timeout) override;
  std::optional<absl::Duration> GetReceiveTimeout() const override {
    if (timeout_ == nullptr) return std::nullopt;
    return timeout_->timeout;
  }

  // Queues the Create system message. Called once, by the creator.
  void Start();
  // One turn of the mailbox (dispatcher threads only).
  void Run();

  const std::string& name() const { return name_; }
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
  void UnstashThroughInternalStash() { unstash_through_internal_ = true; }
  const Envelope* current() const { return current_; }

  // The cell whose actor is being constructed on this thread.
  static ActorCell* Constructing();

 private:
  static constexpr uint32_t kScheduled = 1;
  static constexpr uint32_t kClosed = 2;

  enum class Life { kNew, kAlive, kRecreating, kTerminating, kTerminated };

  struct ChildEntry {
    ActorRef ref;
    ActorCell* cell;
    ChildRestartStats stats;
    bool stopping = false;
  };

  // Scheduling.
  bool TrySchedule();
  bool CanProcessUserMessages() const {
    return life_ == Life::kAlive && suspend_count_ == 0;
  }
  bool HasSystemMessages() const {
    return system_head_.load(std::memory_order_acquire) != nullptr;
  }
  Envelope* NextUserMessage();
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

  // Supervision (actor_cell_supervision.cc).
  void HandleFailed(SystemMessage& m);
  actor::SupervisorStrategy& Strategy();
  void RestartChild(ChildEntry& child, const std::exception_ptr& cause,
                    bool suspend_first);
  void StopChild(ChildEntry& child);

  // Children and DeathWatch (actor_cell_children.cc).
  ChildEntry* FindChild(const ActorCell* cell);
  std::vector<ChildEntry*> ChildEntries();
  bool AnyChildStopping();
  void StopAllChildren();
  void HandleDeathWatchNotification(SystemMessage& m);
  void HandleChildTerminated(ActorCell* child);
  void NotifyWatchersAndParent();
  std::string NextChildName();

  ActorSystem* const system_;
  ActorCell* const parent_;  // the cell holds a reference to it
  const std::string name_;
  const int64_t uid_;
  const Props props_;
  Dispatcher* const dispatcher_;

  std::atomic<uint32_t> status_{0};
  MpscQueue user_queue_;
  std::unique_ptr<MessageQueue> custom_queue_;
  std::atomic<SystemMessage*> system_head_{nullptr};

  // Mailbox-thread state.
  std::unique_ptr<Actor> actor_;
  Life life_ = Life::kNew;
  int suspend_count_ = 0;
  bool failed_ = false;  // waiting for the parent's decision
  std::exception_ptr failed_cause_;
  Envelope* current_ = nullptr;
  bool current_stashed_ = false;
  bool unstash_through_internal_ = false;
  // Messages the user unstashed while processing `current_`, when they go
  // through the internal stash: the next one goes in behind them.
  uint32_t unstashed_in_current_ = 0;
  AnyMessage failed_message_;
  std::exception_ptr recreate_cause_;
  std::unique_ptr<actor::SupervisorStrategy> strategy_;
  EnvelopeDeque prepended_;  // unstashed, ahead of the mailbox
  EnvelopeDeque stash_;
  EnvelopeDeque internal_stash_;
  int stash_capacity_;
  // State most actors never need lives in blocks made on first use, to
  // keep an idle actor small.
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
  DeathWatchState& Watches() {
    if (watch_ == nullptr) watch_ = std::make_unique<DeathWatchState>();
    return *watch_;
  }
  std::unique_ptr<ReceiveTimeoutState> timeout_;  // null: none set
  uint64_t receive_timeout_generation_ = 0;  // tells stale timer ticks apart
  std::unique_ptr<DeathWatchState> watch_;

  // Children, made on first use (most actors have none). The block is
  // shared with other threads (the system creates top-level actors from
  // outside), so its pointer is atomic and its contents are guarded by its
  // mutex; entries keep their address across inserts (node map) and are
  // erased only on the mailbox thread, which may use them unlocked.
  struct Children {
    std::mutex mu;
    absl::node_hash_map<std::string, ChildEntry> entries;
    bool closed = false;  // stopping: no new children
    uint64_t next_name = 0;
  };
  Children* children() const {
    return children_.load(std::memory_order_acquire);
  }
  Children& EnsureChildren();
  std::atomic<Children*> children_{nullptr};  // owned
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_ACTOR_CELL_H_
