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
#include "actor/internal/system_access.h"
#include "actor/internal/system_settings.h"
#include "actor/messages.h"

namespace cairn::actor::internal {
namespace {

thread_local ActorRefImpl* current_self = nullptr;
// The message being processed on this thread: one slot per thread instead
// of one per actor, since a thread runs one actor at a time.
thread_local Envelope* current_envelope = nullptr;

// Fires an actor's receive timeout; carries the timer generation so a stale
// timer (from before SetReceiveTimeout changed) is ignored.
struct ReceiveTimeoutTick {
  uint64_t generation;
};

}  // namespace

template <>
inline constexpr bool kRuntimeMessage<ReceiveTimeoutTick> = true;

// An idle actor's memory is a target (docs/ARCHITECTURE.md, "Memory per
// actor"): with glibc's 16-byte steps, 120 bytes is the largest cell that
// still fits a 128-byte chunk. Checked where it was measured.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(ActorCell) <= 120,
              "ActorCell outgrew its 128-byte malloc chunk: put the new "
              "state in Extras unless every actor needs it");
#endif

ActorRefImpl* CurrentSelf() { return current_self; }
void SetCurrentSelf(ActorRefImpl* self) { current_self = self; }

// Actor::SenderOverride's sender while one lives on this thread.
thread_local ActorRefImpl* sender_override = nullptr;
thread_local bool sender_overridden = false;

ActorRefImpl* CurrentSender() {
  if (sender_overridden) return sender_override;
  return current_envelope == nullptr ? nullptr : current_envelope->sender();
}

void OverrideSender(ActorRefImpl* sender, ActorRefImpl** previous,
                    bool* previous_set) {
  *previous = std::exchange(sender_override, sender);
  *previous_set = std::exchange(sender_overridden, true);
}

void RestoreSender(ActorRefImpl* previous, bool previous_set) {
  sender_override = previous;
  sender_overridden = previous_set;
}

const Envelope* ActorCell::Current() { return current_envelope; }
void ActorCell::ForgetCurrent() { current_envelope = nullptr; }

thread_local ActorCell* constructing_cell_slot = nullptr;

ActorCell* ActorCell::Constructing() { return constructing_cell_slot; }

void RunCell(ActorCell* cell) {
  cell->Run();
  cell->Release();
}

void ReleaseCell(ActorCell* cell) { cell->ReleaseUnrun(); }

namespace {

void DeleteSystemMessages(std::atomic<SystemMessage*>& head) {
  SystemMessage* m = head.exchange(nullptr);
  while (m != nullptr) delete std::exchange(m, m->next);
}

}  // namespace

void ActorCell::ReleaseUnrun() {
  // A system message left in a closed cell would stay until the cell's
  // last reference goes, and it may hold a cell that holds this one (a
  // notice from a child, which holds its parent): a cycle, kept for good.
  // Nothing will handle it now. The turn is this caller's (kScheduled).
  if (status_.load(std::memory_order_acquire) & kClosed) {
    DeleteSystemMessages(system_head_);
    status_.fetch_and(~kScheduled, std::memory_order_seq_cst);
    // One that came meanwhile saw the turn taken: it goes the same way
    // (Execute on the stopped dispatcher comes back here).
    if (HasSystemMessages()) TrySchedule();
  }
  Release();
}

ActorCell::ActorCell(ActorCell* parent, std::string_view name, int64_t uid,
                     Props props, Dispatcher* dispatcher,
                     MailboxSettings mailbox)
    : parent_(parent),
      name_(name),
      uid_(uid),
      props_(std::move(props)),
      dispatcher_(dispatcher),
      stash_capacity_(mailbox.stash_capacity) {
  if (parent_ != nullptr) parent_->AddRef();
  uint32_t status = 0;
  if (mailbox.custom_queue != nullptr) {
    EnsureExtras().custom_queue = std::move(mailbox.custom_queue);
    status |= kCustomMailbox;
  }
  if (props_.has_mailbox_status()) {
    EnsureExtras();
    status |= kCountsMailbox;
  }
  if (props_.send_route() != nullptr) {
    EnsureExtras().send_route = props_.send_route();
    status |= kRoutesOnSend;
    flags_ |= kHasSendRoute;
  }
  status_.store(status, std::memory_order_relaxed);
  // Before anyone can see the cell: a parent that is stopping may stop it
  // before Start(), and its Detach must come after this.
  dispatcher_->Attach(this);
}

ActorCell::~ActorCell() {
  // Only messages that raced with the actor's end can still be here.
  while (MpscNode* n = user_queue_.Pop()) static_cast<Envelope*>(n)->Dispose();
  DeleteSystemMessages(system_head_);
  if (stashes_ != nullptr) {
    stashes_->prepended.DrainInto([](Envelope* e) { e->Dispose(); });
    stashes_->stash.DrainInto([](Envelope* e) { e->Dispose(); });
    stashes_->internal_stash.DrainInto([](Envelope* e) { e->Dispose(); });
  }
  if (Extras* x = extras()) {
    if (Family* f = x->family.load(std::memory_order_acquire)) {
      for (ActorCell* child : f->children) child->Release();
      for (ActorCell* child : f->terminated_children) child->Release();
      delete f;
    }
    delete x;
  }
  if (parent_ != nullptr) parent_->Release();
}

namespace {

// The block `slot` points to, made now if none is: by this thread or,
// racing, by another (whose block is kept). seq_cst: ActorOf relies on it
// against StopAllChildren (see there).
template <typename T>
T& MadeOnce(std::atomic<T*>& slot) {
  T* made = slot.load(std::memory_order_seq_cst);
  if (made != nullptr) return *made;
  auto* fresh = new T();
  if (slot.compare_exchange_strong(made, fresh, std::memory_order_seq_cst)) {
    return *fresh;
  }
  delete fresh;  // another thread made it first
  return *made;
}

}  // namespace

ActorCell::Extras& ActorCell::EnsureExtras() { return MadeOnce(extras_); }

ActorCell::Family& ActorCell::EnsureFamily() {
  return MadeOnce(EnsureExtras().family);
}

// --- Delivery --------------------------------------------------------------

void ActorCell::Deliver(Envelope* envelope) {
  const uint32_t status = status_.load(std::memory_order_acquire);
  if (status & kClosed) {
    ToDeadLetters(envelope);
    return;
  }
  // One bit test for every other actor.
  if ((status & kRoutesOnSend) && !envelope->payload().runtime_message()) {
    envelope = RouteOnSend(envelope);
    if (envelope == nullptr) return;
  }
  if (envelope->payload().control_message()) {
    // Through the system queue, which the actor reads between messages:
    // from there it goes in front of the user messages (control_message.h).
    auto* control = new SystemMessage(SystemMessageKind::kControl);
    control->envelope = envelope;
    SendSystem(control);
    return;
  }
  // Counted before it can be taken, so the count is never below the
  // messages really there.
  const bool counts = (status & kCountsMailbox) != 0;
  if (counts) extras()->enqueued.fetch_add(1, std::memory_order_relaxed);
  if (status & kCustomMailbox) {
    if (!extras()->custom_queue->Enqueue(
            envelope,
            /*from_itself=*/current_self == this)) {
      if (counts) extras()->enqueued.fetch_sub(1, std::memory_order_relaxed);
      // The actor will not process it: its route's token comes back now.
      if (status & kRoutesOnSend) {
        if (const uint32_t token = envelope->TakeRouteToken()) {
          extras()->send_route->Handled(token);
        }
      }
      ToDeadLetters(envelope);
      return;
    }
  } else {
    user_queue_.Push(envelope);
  }
  if (!(status_.load(std::memory_order_seq_cst) & kScheduled)) TrySchedule();
}

Envelope* ActorCell::RouteOnSend(Envelope* envelope) {
  const Payload& payload = envelope->payload();
  payload.AddRef();
  const AnyMessage message(&payload);
  SendRoute::Decision decision;
  try {
    decision =
        extras()->send_route->OnSend(message, ActorRef(envelope->sender()));
  } catch (...) {
    return envelope;  // declined: the sender's Tell does not throw
  }
  if (decision.taken) {
    envelope->Dispose();
    return nullptr;
  }
  if (decision.token == 0) return envelope;
  payload.AddRef();
  auto* routed =
      new RoutedEnvelope(&payload, envelope->sender(), decision.token);
  envelope->Dispose();
  return routed;
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
  SystemAccess::DeadLetters(System())->DeadLetterFrom(envelope, this);
}

Envelope* ActorCell::NextUserMessage() {
  if (HasPrepended()) return stashes_->prepended.PopFront();
  Extras* x = extras();
  if (x == nullptr) return static_cast<Envelope*>(user_queue_.Pop());
  Envelope* e = x->custom_queue != nullptr
                    ? x->custom_queue->Dequeue()
                    : static_cast<Envelope*>(user_queue_.Pop());
  if (e != nullptr &&
      (status_.load(std::memory_order_relaxed) & kCountsMailbox)) {
    // One writer (the consumer): a plain store, no read-modify-write.
    // Release: a reader that sees it sees the sender's increment too.
    x->dequeued.store(x->dequeued.load(std::memory_order_relaxed) + 1,
                      std::memory_order_release);
  }
  return e;
}

std::optional<MailboxStatus> ActorCell::GetMailboxStatus() const {
  if (!(status_.load(std::memory_order_relaxed) & kCountsMailbox)) {
    return std::nullopt;
  }
  // Taken first: every message counted here was counted as queued before.
  const Extras* x = extras();
  const uint32_t taken = x->dequeued.load(std::memory_order_acquire);
  const uint32_t queued = x->enqueued.load(std::memory_order_acquire);
  const auto size = static_cast<int32_t>(queued - taken);
  MailboxStatus status;
  status.queued = size > 0 ? static_cast<size_t>(size) : 0;
  status.scheduled =
      (status_.load(std::memory_order_acquire) & kScheduled) != 0;
  return status;
}

void ActorCell::DrainToDeadLetters() {
  if (stashes_ != nullptr) {
    stashes_->internal_stash.DrainInto(
        [this](Envelope* e) { ToDeadLetters(e); });
    stashes_->stash.DrainInto([this](Envelope* e) { ToDeadLetters(e); });
  }
  while (Envelope* e = NextUserMessage()) ToDeadLetters(e);
}

// --- The run loop ------------------------------------------------------------

void ActorCell::Run() {
  ActorRefImpl* previous_self = std::exchange(current_self, this);
  Envelope* previous_envelope = std::exchange(current_envelope, nullptr);

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
  current_envelope = previous_envelope;

  // Decide on consumer-side state before giving up the mailbox: once the
  // scheduled bit is clear, another thread may be running it.
  const bool can_process = closed || CanProcessUserMessages();
  // The custom queue is set before the cell is shared and never changes.
  MessageQueue* custom =
      (status_.load(std::memory_order_relaxed) & kCustomMailbox)
          ? extras()->custom_queue.get()
          : nullptr;
  const bool pending_here =
      can_process && (HasPrepended() ||
                      (custom == nullptr && !user_queue_.ConsumerSideEmpty()));
  // Going idle (for now) with nothing stashed: what held the stashes goes.
  // Before giving up the mailbox: they are its thread's alone.
  if (!pending_here && stashes_ != nullptr && stashes_->empty()) {
    stashes_.reset();
  }
  status_.fetch_and(~kScheduled, std::memory_order_seq_cst);
  // A producer that saw us scheduled did not schedule: look again, at
  // state producers write (the consumer's side may be another thread's now).
  bool more = pending_here || HasSystemMessages();
  if (!more && can_process) {
    more = custom != nullptr ? custom->HasMessages()
                             : user_queue_.PushedSinceEmpty();
  }
  if (more) TrySchedule();
}

bool ActorCell::SystemMessagePending() const {
  // Safe to walk: only this thread, the consumer, takes messages off the
  // stack, and a message's link is set before it is pushed.
  for (const SystemMessage* m = system_head_.load(std::memory_order_acquire);
       m != nullptr; m = m->next) {
    if (m->kind != SystemMessageKind::kControl) return true;
  }
  return false;
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
      if (Extras* x = extras(); x != nullptr && x->watch != nullptr) {
        x->watch->watchers.erase(m.ref);
      }
      break;
    case SystemMessageKind::kFailed:
      HandleFailed(m);
      break;
    case SystemMessageKind::kDeathWatchNotification:
      HandleDeathWatchNotification(m);
      break;
    case SystemMessageKind::kControl:
      // Behind what is in front already: the message put back with
      // ProcessAgainFirst and unstashed ones, all older.
      EnsureStashes().prepended.PushBack(std::exchange(m.envelope, nullptr));
      break;
  }
}

void ActorCell::HandleSystemMessageWhenClosed(SystemMessage& m) {
  // A stopped actor answers a late Watch at once, so a watcher always
  // learns of the death; everything else has nobody left to act on it.
  // As in Akka, where such a Watch reaches dead letters, the answer does
  // not confirm that the actor ever existed: a dead actor and a path that
  // never had one look the same to the watcher.
  if (m.kind == SystemMessageKind::kWatch && m.ref.impl() != this) {
    auto* n =
        new SystemMessage(SystemMessageKind::kDeathWatchNotification, Self());
    n->existence_confirmed = false;
    m.ref.impl()->SendSystem(n);
  }
  if (m.kind == SystemMessageKind::kControl) {
    ToDeadLetters(std::exchange(m.envelope, nullptr));
  }
}

// --- Invocation ------------------------------------------------------------

void ActorCell::Invoke(Envelope* envelope) {
  if (envelope->payload().runtime_message() &&
      envelope->payload().type() == typeid(TimerMessage)) {
    // Unwrapped before anything else sees it, so that a handler, Stash()
    // and a failure's PreRestart all get the user's message itself (a
    // stashed one is not checked again: it was live when taken, as in
    // Akka).
    envelope = TakeTimerMessage(envelope);
    if (envelope == nullptr) return;
  }
  const uint32_t route_token =
      (flags_ & kHasSendRoute) ? envelope->TakeRouteToken() : 0;
  current_envelope = envelope;
  flags_ &= ~kCurrentStashed;
  if (stashes_ != nullptr) stashes_->unstashed_in_current = 0;
  Extras* x = extras();
  const Payload& payload = envelope->payload();
  try {
    if (!HandleAutoReceived(payload)) {
      if (x != nullptr && x->timeout != nullptr) {
        x->timeout->last_activity = System().GetClock().Now();
      }
      if (!actor_->AroundReceive(MessageView(payload))) {
        payload.AddRef();
        actor_->Unhandled(AnyMessage(&payload));
      }
    }
  } catch (...) {
    HandleInvokeFailure(std::current_exception());
  }
  if (actor_ != nullptr) actor_->ReleaseRetiredBehaviors();
  current_envelope = nullptr;
  if (!(flags_ & kCurrentStashed)) envelope->Dispose();
  if (route_token != 0) extras()->send_route->Handled(route_token);
}

bool ActorCell::HandleAutoReceived(const Payload& payload) {
  if (!payload.runtime_message()) return false;
  const std::type_info& type = payload.type();
  if (type == typeid(PoisonPill)) {
    if (actor_->AroundPoisonPill()) Stop(Self());
    return true;
  }
  if (type == typeid(Kill)) {
    throw ActorKilledException(absl::StrCat("Kill: ", Path().ToString()));
  }
  if (type == typeid(Identify)) {
    // By raw(): an Identify from another process is a SharedPayload.
    const auto& identify = *static_cast<const Identify*>(payload.raw());
    ActorRef(current_envelope->sender())
        .Tell(ActorIdentity{identify.message_id, Self()}, Self());
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
    Extras* x = extras();
    if (x == nullptr || x->watch == nullptr ||
        x->watch->terminated_queued.erase(t.actor) == 0) {
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
    if (!HandleAutoReceived(inner) &&
        !actor_->AroundReceive(MessageView(inner))) {
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
      System().DeadLetters().TellAny(d.message, sender);
    }
    return;
  }
  for (const ActorRef& target : targets) {
    target.Tell(SelectionDelivery{d.elements, next + 1, d.message}, sender);
  }
}

// --- Receive timeout ---------------------------------------------------------

void ActorCell::SetReceiveTimeout(std::optional<absl::Duration> timeout) {
  CancelReceiveTimeout();
  if (!timeout.has_value()) return;
  Extras& x = EnsureExtras();
  x.timeout = std::make_unique<ReceiveTimeoutState>();
  x.timeout->timeout = *timeout;
  x.timeout->last_activity = System().GetClock().Now();
  ScheduleReceiveTimeoutTick(*timeout);
}

std::optional<absl::Duration> ActorCell::GetReceiveTimeout() const {
  Extras* x = extras();
  if (x == nullptr || x->timeout == nullptr) return std::nullopt;
  return x->timeout->timeout;
}

void ActorCell::CancelReceiveTimeout() {
  Extras* x = extras();
  if (x == nullptr) return;
  if (x->timeout != nullptr) x->timeout->timer.Cancel();
  x->timeout.reset();  // its timer holds a reference to this cell
  ++x->receive_timeout_generation;
}

void ActorCell::ScheduleReceiveTimeoutTick(absl::Duration after) {
  Extras& x = *extras();
  x.timeout->timer = System().Scheduler().ScheduleTellOnce(
      after, Self(), ReceiveTimeoutTick{x.receive_timeout_generation}, Self());
}

void ActorCell::HandleReceiveTimeoutTick(uint64_t generation) {
  Extras* x = extras();
  if (x == nullptr || generation != x->receive_timeout_generation ||
      x->timeout == nullptr) {
    return;
  }
  // One timer per actor, re-armed lazily: messages only stamp the time of
  // last activity instead of cancelling and re-scheduling a timer each.
  ReceiveTimeoutState& state = *x->timeout;
  const absl::Time now = System().GetClock().Now();
  const absl::Duration idle = now - state.last_activity;
  if (idle < state.timeout) {
    ScheduleReceiveTimeoutTick(state.timeout - idle);
    return;
  }
  state.last_activity = now;
  ScheduleReceiveTimeoutTick(state.timeout);
  AnyMessage timeout = AnyMessage::Of(ReceiveTimeout{});
  if (!actor_->AroundReceive(MessageView(timeout))) actor_->Unhandled(timeout);
}

// --- Timers ------------------------------------------------------------------

TimerScheduler& ActorCell::Timers() {
  Extras& x = EnsureExtras();
  if (x.timers == nullptr) x.timers.reset(new TimerScheduler(this));
  return *x.timers;
}

void ActorCell::CancelTimers() {
  if (Extras* x = extras(); x != nullptr && x->timers != nullptr) {
    x->timers->CancelAll();
  }
}

Envelope* ActorCell::TakeTimerMessage(Envelope* timer_envelope) {
  std::unique_ptr<Envelope, EnvelopeDisposer> wrapper(timer_envelope);
  const TimerMessage& m =
      static_cast<const PayloadOf<TimerMessage>&>(wrapper->payload()).value();
  Extras* x = extras();
  if (x == nullptr || x->timers == nullptr || !x->timers->Accept(m)) {
    return nullptr;
  }
  const Payload* inner = m.message.payload();
  inner->AddRef();
  return new SharedEnvelope(inner, nullptr);
}

// --- Stash -------------------------------------------------------------------

void ActorCell::StashCurrent(bool internal) {
  if (current_envelope == nullptr || (flags_ & kCurrentStashed)) {
    throw IllegalActorStateException(
        "Stash() must be called once, while processing a message");
  }
  Stashes& x = EnsureStashes();
  EnvelopeDeque& stash = internal ? x.internal_stash : x.stash;
  if (stash_capacity_ >= 0 &&
      static_cast<int>(stash.size()) >= stash_capacity_) {
    throw StashOverflowException(absl::StrCat(
        internal ? "internal stash of " : "stash of ", Path().ToString(),
        " is full (capacity ", stash_capacity_, ")"));
  }
  stash.PushBack(current_envelope);
  flags_ |= kCurrentStashed;
}

void ActorCell::ProcessCurrentAgainFirst() {
  if (current_envelope == nullptr || (flags_ & kCurrentStashed)) {
    throw IllegalActorStateException(
        "ProcessAgainFirst() must be called once, while processing a "
        "message that is not stashed");
  }
  EnsureStashes().prepended.PushFront(current_envelope);
  flags_ |= kCurrentStashed;  // kept: not disposed after the handler
}

void ActorCell::UnstashInternal(bool all) {
  Stashes* x = stashes_.get();
  if (x == nullptr) return;
  // Behind what is already in front of the mailbox: with the user's
  // unstashing routed into the internal stash, that can only be messages
  // let out of it earlier, which are older, and control messages, which
  // go first anyway. One at a time: not while one let out earlier waits
  // there (control messages do not count: one the actor drops unread, a
  // persistent actor's stale reply, would hold the stash until the next
  // message came, and that one would overtake what is stashed).
  if (all) {
    x->prepended.AppendAll(x->internal_stash);
  } else if (!x->internal_stash.empty() &&
             !x->prepended.AnyOf([](const Envelope* e) {
               return !e->payload().control_message();
             })) {
    x->prepended.PushBack(x->internal_stash.PopFront());
  }
}

void ActorCell::Unstash(bool all) {
  Stashes* x = stashes_.get();
  if (x == nullptr || x->stash.empty()) return;
  if (flags_ & kUnstashThroughInternal) {
    const size_t at = x->unstashed_in_current;
    if (all) {
      x->unstashed_in_current += x->stash.size();
      x->internal_stash.InsertAllAt(at, x->stash);
    } else {
      ++x->unstashed_in_current;
      x->internal_stash.InsertAt(at, x->stash.PopFront());
    }
    return;
  }
  if (all) {
    x->prepended.PrependAll(x->stash);
  } else {
    x->prepended.PushFront(x->stash.PopFront());
  }
}

// --- Identity ----------------------------------------------------------------

ActorPath ActorCell::Path() const {
  std::vector<std::string> elements;
  for (const ActorCell* c = this; c->parent_ != nullptr; c = c->parent_) {
    elements.emplace_back(c->name());
  }
  std::reverse(elements.begin(), elements.end());
  return ActorPath(System().address(), std::move(elements), uid_);
}

ActorRef ActorCell::Self() const {
  return ActorRef(const_cast<ActorCell*>(this));
}

ActorRef ActorCell::Sender() const { return ActorRef(CurrentSender()); }

ActorRef ActorCell::Parent() const { return ActorRef(parent_); }

}  // namespace cairn::actor::internal
