// The mailbox half of ActorCell: delivery, scheduling, the run loop and
// message invocation. Lifecycle, supervision and children live beside it.
#include "actor/internal/actor_cell.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor_selection.h"
#include "actor/actor_system.h"
#include "actor/exceptions.h"
#include "actor/internal/dead_letters.h"
#include "actor/internal/selection_delivery.h"
#include "actor/internal/system_settings.h"
#include "actor/messages.h"

namespace cairn::actor::internal {
namespace {

thread_local ActorRefImpl* current_self = nullptr;
thread_local ActorCell* current_cell = nullptr;

// Fires an actor's receive timeout; carries the timer generation so a stale
// timer (from before SetReceiveTimeout changed) is ignored.
struct ReceiveTimeoutTick {
  uint64_t generation;
};

}  // namespace

ActorRefImpl* CurrentSelf() { return current_self; }
void SetCurrentSelf(ActorRefImpl* self) { current_self = self; }

ActorRefImpl* CurrentSender() {
  ActorCell* cell = current_cell;
  if (cell == nullptr || cell->current() == nullptr) return nullptr;
  return cell->current()->sender();
}

thread_local ActorCell* constructing_cell_slot = nullptr;

ActorCell* ActorCell::Constructing() { return constructing_cell_slot; }

void RunCell(ActorCell* cell) {
  cell->Run();
  cell->Release();
}

void ReleaseCell(ActorCell* cell) { cell->Release(); }

ActorCell::ActorCell(ActorSystem* system, ActorCell* parent, std::string name,
                     int64_t uid, Props props, Dispatcher* dispatcher,
                     MailboxSettings mailbox)
    : system_(system),
      parent_(parent),
      name_(std::move(name)),
      uid_(uid),
      props_(std::move(props)),
      dispatcher_(dispatcher),
      custom_queue_(std::move(mailbox.custom_queue)),
      stash_capacity_(mailbox.stash_capacity) {
  if (parent_ != nullptr) parent_->AddRef();
}

ActorCell::~ActorCell() {
  // Only messages that raced with the actor's end can still be here.
  while (MpscNode* n = user_queue_.Pop()) static_cast<Envelope*>(n)->Dispose();
  prepended_.DrainInto([](Envelope* e) { e->Dispose(); });
  stash_.DrainInto([](Envelope* e) { e->Dispose(); });
  internal_stash_.DrainInto([](Envelope* e) { e->Dispose(); });
  SystemMessage* m = system_head_.exchange(nullptr);
  while (m != nullptr) delete std::exchange(m, m->next);
  delete children_.load(std::memory_order_acquire);
  if (parent_ != nullptr) parent_->Release();
}

// --- Delivery --------------------------------------------------------------

void ActorCell::Deliver(Envelope* envelope) {
  if (status_.load(std::memory_order_acquire) & kClosed) {
    ToDeadLetters(envelope);
    return;
  }
  if (custom_queue_ != nullptr) {
    if (!custom_queue_->Enqueue(envelope)) {
      ToDeadLetters(envelope);
      return;
    }
  } else {
    user_queue_.Push(envelope);
  }
  if (!(status_.load(std::memory_order_seq_cst) & kScheduled)) TrySchedule();
}

void ActorCell::SendSystem(SystemMessage* message) {
  SystemMessage* head = system_head_.load(std::memory_order_relaxed);
  do {
    message->next = head;
  } while (!system_head_.compare_exchange_weak(
      head, message, std::memory_order_seq_cst, std::memory_order_relaxed));
  if (!(status_.load(std::memory_order_seq_cst) & kScheduled)) TrySchedule();
}

bool ActorCell::TrySchedule() {
  uint32_t s = status_.load(std::memory_order_seq_cst);
  while (!(s & kScheduled)) {
    if (status_.compare_exchange_weak(s, s | kScheduled,
                                      std::memory_order_seq_cst)) {
      AddRef();  // the dispatcher's reference
      dispatcher_->Execute(this);
      return true;
    }
  }
  return false;
}

void ActorCell::ToDeadLetters(Envelope* envelope) {
  system_->dead_letters()->DeadLetterFrom(envelope, this);
}

Envelope* ActorCell::NextUserMessage() {
  if (!prepended_.empty()) return prepended_.PopFront();
  if (custom_queue_ != nullptr) return custom_queue_->Dequeue();
  return static_cast<Envelope*>(user_queue_.Pop());
}

void ActorCell::DrainToDeadLetters() {
  internal_stash_.DrainInto([this](Envelope* e) { ToDeadLetters(e); });
  stash_.DrainInto([this](Envelope* e) { ToDeadLetters(e); });
  while (Envelope* e = NextUserMessage()) ToDeadLetters(e);
}

// --- The run loop ------------------------------------------------------------

void ActorCell::Run() {
  ActorRefImpl* previous_self = current_self;
  ActorCell* previous_cell = current_cell;
  current_self = this;
  current_cell = this;

  ProcessSystemMessages();
  for (int budget = dispatcher_->throughput();
       budget > 0 && CanProcessUserMessages(); --budget) {
    Envelope* e = NextUserMessage();
    if (e == nullptr) break;
    Invoke(e);
    if (HasSystemMessages()) ProcessSystemMessages();
  }
  const bool closed = (status_.load(std::memory_order_acquire) & kClosed) != 0;
  if (closed) DrainToDeadLetters();

  current_self = previous_self;
  current_cell = previous_cell;

  // Decide on consumer-side state before giving up the mailbox: once the
  // scheduled bit is clear, another thread may be running it.
  const bool can_process = closed || CanProcessUserMessages();
  const bool pending_here =
      can_process &&
      (!prepended_.empty() ||
       (custom_queue_ == nullptr && !user_queue_.ConsumerSideEmpty()));
  status_.fetch_and(~kScheduled, std::memory_order_seq_cst);
  // A producer that saw us scheduled did not schedule: look again, at
  // state producers write (the consumer's side may be another thread's now).
  bool more = pending_here || HasSystemMessages();
  if (!more && can_process) {
    more = custom_queue_ != nullptr ? custom_queue_->HasMessages()
                                    : user_queue_.PushedSinceEmpty();
  }
  if (more) TrySchedule();
}

void ActorCell::ProcessSystemMessages() {
  while (SystemMessage* batch =
             system_head_.exchange(nullptr, std::memory_order_acquire)) {
    // The stack holds the newest first; reverse to process in order.
    SystemMessage* ordered = nullptr;
    while (batch != nullptr) {
      SystemMessage* next = batch->next;
      batch->next = ordered;
      ordered = batch;
      batch = next;
    }
    while (ordered != nullptr) {
      std::unique_ptr<SystemMessage> m(std::exchange(ordered, ordered->next));
      if (status_.load(std::memory_order_acquire) & kClosed) {
        HandleSystemMessageWhenClosed(*m);
        continue;
      }
      try {
        HandleSystemMessage(*m);
      } catch (...) {
        HandleInvokeFailure(std::current_exception());
      }
    }
  }
}

void ActorCell::HandleSystemMessage(SystemMessage& m) {
  switch (m.kind) {
    case SystemMessageKind::kCreate:
      Create();
      break;
    case SystemMessageKind::kSuspend:
      Suspend();
      break;
    case SystemMessageKind::kResume:
      Resume(m.cause != nullptr);
      break;
    case SystemMessageKind::kRecreate:
      Recreate(m.cause);
      break;
    case SystemMessageKind::kTerminate:
      Terminate();
      break;
    case SystemMessageKind::kWatch:
      if (m.ref.impl() != this) Watches().watchers.insert(m.ref);
      break;
    case SystemMessageKind::kUnwatch:
      if (watch_ != nullptr) watch_->watchers.erase(m.ref);
      break;
    case SystemMessageKind::kFailed:
      HandleFailed(m);
      break;
    case SystemMessageKind::kDeathWatchNotification:
      HandleDeathWatchNotification(m);
      break;
  }
}

void ActorCell::HandleSystemMessageWhenClosed(SystemMessage& m) {
  // A stopped actor answers a late Watch at once, so a watcher always
  // learns of the death; everything else has nobody left to act on it.
  if (m.kind == SystemMessageKind::kWatch && m.ref.impl() != this) {
    auto* n =
        new SystemMessage(SystemMessageKind::kDeathWatchNotification, Self());
    n->existence_confirmed = true;
    m.ref.impl()->SendSystem(n);
  }
}

// --- Invocation ------------------------------------------------------------

void ActorCell::Invoke(Envelope* envelope) {
  current_ = envelope;
  current_stashed_ = false;
  unstashed_in_current_ = 0;
  const Payload& payload = envelope->payload();
  try {
    if (!HandleAutoReceived(payload)) {
      if (timeout_ != nullptr) {
        timeout_->last_activity = system_->GetClock().Now();
      }
      if (!actor_->AroundReceive(payload)) {
        payload.AddRef();
        actor_->Unhandled(AnyMessage(&payload));
      }
    }
  } catch (...) {
    HandleInvokeFailure(std::current_exception());
  }
  if (actor_ != nullptr) actor_->ReleaseRetiredBehaviors();
  current_ = nullptr;
  if (!current_stashed_) envelope->Dispose();
}

bool ActorCell::HandleAutoReceived(const Payload& payload) {
  const std::type_info& type = payload.type();
  if (type == typeid(PoisonPill)) {
    Stop(Self());
    return true;
  }
  if (type == typeid(Kill)) {
    throw ActorKilledException(absl::StrCat("Kill: ", Path().ToString()));
  }
  if (type == typeid(Identify)) {
    const auto& identify = static_cast<const PayloadOf<Identify>&>(payload);
    ActorRef(current_->sender())
        .Tell(ActorIdentity{identify.value().message_id, Self()}, Self());
    return true;
  }
  if (type == typeid(SelectionDelivery)) {
    DeliverSelection(
        static_cast<const PayloadOf<SelectionDelivery>&>(payload).value());
    return true;
  }
  if (type == typeid(ReceiveTimeoutTick)) {
    HandleReceiveTimeoutTick(
        static_cast<const PayloadOf<ReceiveTimeoutTick>&>(payload)
            .value()
            .generation);
    return true;
  }
  if (type == typeid(Terminated)) {
    // Delivered only while still watched: Unwatch cancels a queued one.
    const auto& t = static_cast<const PayloadOf<Terminated>&>(payload).value();
    if (watch_ == nullptr || watch_->terminated_queued.erase(t.actor) == 0) {
      return true;
    }
    return false;
  }
  return false;
}

// --- Actor selection ------------------------------------------------------

void ActorCell::DeliverSelection(const SelectionDelivery& d) {
  const std::vector<std::string>& path = *d.elements;
  size_t next = d.next;
  while (next < path.size() && (path[next].empty() || path[next] == ".")) {
    ++next;
  }
  if (next == path.size()) {
    // Arrived: the message is received here and now, as if sent directly.
    const Payload& inner = *d.message.payload();
    if (!HandleAutoReceived(inner) && !actor_->Dispatch(inner)) {
      actor_->Unhandled(d.message);
    }
    return;
  }
  const std::string& element = path[next];
  std::vector<ActorRef> targets;
  if (element == "..") {
    if (parent_ != nullptr) targets.push_back(Parent());
  } else if (element.find_first_of("*?") == std::string::npos) {
    if (ActorRef child = Child(element); !child.IsNobody()) {
      targets.push_back(std::move(child));
    }
  } else {
    for (ActorRef& child : GetChildren()) {
      if (WildcardMatch(element, child.impl()->AsCell()->name())) {
        targets.push_back(std::move(child));
      }
    }
  }
  ActorRef sender = Sender();
  if (targets.empty()) {
    if (const Identify* identify = d.message.As<Identify>()) {
      sender.Tell(ActorIdentity{identify->message_id, ActorRef()}, ActorRef());
    } else {
      system_->DeadLetters().TellAny(d.message, sender);
    }
    return;
  }
  for (const ActorRef& target : targets) {
    target.Tell(SelectionDelivery{d.elements, next + 1, d.message}, sender);
  }
}

// --- Receive timeout ---------------------------------------------------------

void ActorCell::SetReceiveTimeout(std::optional<absl::Duration> timeout) {
  if (timeout_ != nullptr) timeout_->timer.Cancel();
  ++receive_timeout_generation_;
  if (!timeout.has_value()) {
    timeout_.reset();
    return;
  }
  if (timeout_ == nullptr) timeout_ = std::make_unique<ReceiveTimeoutState>();
  timeout_->timeout = *timeout;
  timeout_->last_activity = system_->GetClock().Now();
  ScheduleReceiveTimeoutTick(*timeout);
}

void ActorCell::ScheduleReceiveTimeoutTick(absl::Duration after) {
  timeout_->timer = system_->Scheduler().ScheduleTellOnce(
      after, Self(), ReceiveTimeoutTick{receive_timeout_generation_}, Self());
}

void ActorCell::HandleReceiveTimeoutTick(uint64_t generation) {
  if (generation != receive_timeout_generation_ || timeout_ == nullptr) {
    return;
  }
  // One timer per actor, re-armed lazily: messages only stamp the time of
  // last activity instead of cancelling and re-scheduling a timer each.
  const absl::Time now = system_->GetClock().Now();
  const absl::Duration idle = now - timeout_->last_activity;
  if (idle < timeout_->timeout) {
    ScheduleReceiveTimeoutTick(timeout_->timeout - idle);
    return;
  }
  timeout_->last_activity = now;
  ScheduleReceiveTimeoutTick(timeout_->timeout);
  AnyMessage timeout = AnyMessage::Of(ReceiveTimeout{});
  if (!actor_->Dispatch(*timeout.payload())) actor_->Unhandled(timeout);
}

// --- Stash -------------------------------------------------------------------

void ActorCell::StashCurrent(bool internal) {
  if (current_ == nullptr || current_stashed_) {
    throw IllegalActorStateException(
        "Stash() must be called once, while processing a message");
  }
  EnvelopeDeque& stash = internal ? internal_stash_ : stash_;
  if (stash_capacity_ >= 0 &&
      static_cast<int>(stash.size()) >= stash_capacity_) {
    throw StashOverflowException(absl::StrCat(
        internal ? "internal stash of " : "stash of ", Path().ToString(),
        " is full (capacity ", stash_capacity_, ")"));
  }
  stash.PushBack(current_);
  current_stashed_ = true;
}

void ActorCell::UnstashInternal(bool all) {
  // Behind what is already in front of the mailbox: with the user's
  // unstashing routed into the internal stash, that can only be messages
  // let out of it earlier, which are older.
  if (all) {
    prepended_.AppendAll(internal_stash_);
  } else if (prepended_.empty() && !internal_stash_.empty()) {
    prepended_.PushBack(internal_stash_.PopFront());
  }
}

void ActorCell::Unstash(bool all) {
  if (stash_.empty()) return;
  if (unstash_through_internal_) {
    const size_t at = unstashed_in_current_;
    if (all) {
      unstashed_in_current_ += stash_.size();
      internal_stash_.InsertAllAt(at, stash_);
    } else {
      ++unstashed_in_current_;
      internal_stash_.InsertAt(at, stash_.PopFront());
    }
    return;
  }
  if (all) {
    prepended_.PrependAll(stash_);
  } else {
    prepended_.PushFront(stash_.PopFront());
  }
}

// --- Identity
// ------------------------------------------------------------------

ActorPath ActorCell::Path() const {
  std::vector<std::string> elements;
  for (const ActorCell* c = this; c->parent_ != nullptr; c = c->parent_) {
    elements.push_back(c->name_);
  }
  std::reverse(elements.begin(), elements.end());
  return ActorPath(system_->name(), std::move(elements), uid_);
}

ActorRef ActorCell::Self() const {
  return ActorRef(const_cast<ActorCell*>(this));
}

ActorRef ActorCell::Sender() const {
  return ActorRef(current_ == nullptr ? nullptr : current_->sender());
}

ActorRef ActorCell::Parent() const { return ActorRef(parent_); }

ActorSystem& ActorCell::System() const { return *system_; }

}  // namespace cairn::actor::internal
