#ifndef CAIRN_ACTOR_TIMER_SCHEDULER_H_
#define CAIRN_ACTOR_TIMER_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "actor/any_message.h"
#include "actor/internal/payload.h"
#include "actor/scheduler.h"

namespace cairn::actor {

namespace internal {
class ActorCell;

// What a timer sends to its actor: the user's message and the generation
// of the timer that sent it. The actor's cell takes it before the handlers
// and lets the message through only while that generation is still the
// live one, so a cancelled or replaced timer's message already in the
// mailbox is dropped.
struct TimerMessage {
  uint64_t generation;
  AnyMessage message;
};
template <>
inline constexpr bool kRuntimeMessage<TimerMessage> = true;
}  // namespace internal

// The key of a timer: any copyable value with ==, stored type-erased (as
// Akka's timers take any object). Two keys match when they have the same
// type and compare equal; strings are one type whatever their form
// ("tick", std::string("tick") and std::string_view("tick") are the same
// key), other types are not converted (int 1 and long 1 differ).
//
// Thread safety: immutable; copies share the value.
class TimerKey {
 public:
  template <typename K, typename = std::enable_if_t<
                            !std::is_same_v<std::decay_t<K>, TimerKey>>>
  TimerKey(K&& key)  // NOLINT(google-explicit-constructor): keys read as values
      : key_(std::make_shared<const Of<Stored<K>>>(
            Stored<K>(std::forward<K>(key)))) {}

  bool operator==(const TimerKey& other) const {
    return key_->Equals(*other.key_);
  }
  bool operator!=(const TimerKey& other) const { return !(*this == other); }

 private:
  template <typename K>
  using Stored = std::conditional_t<std::is_convertible_v<K, std::string_view>,
                                    std::string, std::decay_t<K>>;

  struct Base {
    explicit Base(const std::type_info& t) : type(t) {}
    virtual ~Base() = default;
    virtual bool Equals(const Base& other) const = 0;
    const std::type_info& type;
  };
  template <typename K>
  struct Of final : Base {
    explicit Of(K k) : Base(typeid(K)), value(std::move(k)) {}
    bool Equals(const Base& other) const override {
      return other.type == typeid(K) &&
             static_cast<const Of&>(other).value == value;
    }
    const K value;
  };

  std::shared_ptr<const Base> key_;
};

// An actor's timers (Akka's TimerScheduler, Akka.NET's ITimerScheduler):
// messages the actor sends itself later or periodically, each under a key,
// bound to the actor's life. Reached through Actor::Timers().
//
//   class Poller final : public Actor {
//    public:
//     Poller() {
//       Timers().StartPeriodicTimer("poll", Poll{}, absl::Seconds(1));
//       Receive<Poll>([this](const Poll&) { ... });
//     }
//   };
//
// Guarantees (as Akka's):
//   - Starting a timer under a key in use replaces that timer.
//   - Once a timer is cancelled or replaced, its message is never handled,
//     even one already in the mailbox (each start gets a new generation;
//     the actor's cell checks it when the message comes out of the
//     mailbox, before any handler or stash sees it).
//   - All timers are cancelled when the actor restarts and when it stops,
//     before PreRestart and PostStop run (IsTimerActive is false there);
//     a timer those hooks start is cancelled right after them.
//   - A single timer is no longer active once its message was taken from
//     the mailbox for handling.
//   - Messages arrive with no sender (Sender() is NoSender), and go
//     through Actor::AroundReceive as the plain message (a PersistentActor
//     stashes them while persisting like any command); they count as
//     activity for the receive timeout.
//   - Time is the actor system's scheduler's clock, so a ManualClock
//     drives timers in tests.
//   - A priority mailbox ranks a timer's message as the message itself.
//
// Ownership: one per actor cell, made on first use; it outlives restarts
// (its generations keep counting, so an old instance's message never
// passes for a new one's).
// Thread safety: only from the actor's own thread (its constructor,
// handlers and lifecycle hooks), like Context().
class TimerScheduler {
 public:
  TimerScheduler(const TimerScheduler&) = delete;
  TimerScheduler& operator=(const TimerScheduler&) = delete;
  ~TimerScheduler();

  // Sends `message` once, after `delay`.
  template <typename T>
  void StartSingleTimer(TimerKey key, T message, absl::Duration delay) {
    Start(std::move(key), AnyMessage::Of(std::move(message)), Mode::kSingle,
          delay, absl::ZeroDuration());
  }
  // Sends `message` every `interval` at a fixed rate: the n-th after
  // initial_delay + (n-1) * interval on the clock, so a late one is followed
  // sooner, catching up (Akka's startTimerAtFixedRate). Without
  // `initial_delay` the first comes after one `interval`.
  template <typename T>
  void StartTimerAtFixedRate(TimerKey key, T message, absl::Duration interval) {
    StartTimerAtFixedRate(std::move(key), std::move(message), interval,
                          interval);
  }
  template <typename T>
  void StartTimerAtFixedRate(TimerKey key, T message,
                             absl::Duration initial_delay,
                             absl::Duration interval) {
    Start(std::move(key), AnyMessage::Of(std::move(message)), Mode::kFixedRate,
          initial_delay, interval);
  }
  // Sends `message` periodically, each one `delay` after the previous one
  // was taken from the mailbox: a busy actor gets them less often, never in
  // a burst (Akka's startTimerWithFixedDelay; here the delay counts from
  // the actor's taking of the message, not from the scheduler's sending).
  template <typename T>
  void StartTimerWithFixedDelay(TimerKey key, T message, absl::Duration delay) {
    StartTimerWithFixedDelay(std::move(key), std::move(message), delay, delay);
  }
  template <typename T>
  void StartTimerWithFixedDelay(TimerKey key, T message,
                                absl::Duration initial_delay,
                                absl::Duration delay) {
    Start(std::move(key), AnyMessage::Of(std::move(message)), Mode::kFixedDelay,
          initial_delay, delay);
  }
  // Akka.NET's StartPeriodicTimer: the fixed-rate timer.
  template <typename T>
  void StartPeriodicTimer(TimerKey key, T message, absl::Duration interval) {
    StartTimerAtFixedRate(std::move(key), std::move(message), interval);
  }
  template <typename T>
  void StartPeriodicTimer(TimerKey key, T message, absl::Duration initial_delay,
                          absl::Duration interval) {
    StartTimerAtFixedRate(std::move(key), std::move(message), initial_delay,
                          interval);
  }

  // True while a timer under `key` may still deliver: started, not
  // cancelled or replaced, and (a single timer) its message not yet taken.
  bool IsTimerActive(const TimerKey& key) const;
  // Cancels the timer under `key`, if any; its message is then never
  // handled. No effect for an unknown key.
  void Cancel(const TimerKey& key);
  void CancelAll();

 private:
  friend class internal::ActorCell;
  enum class Mode { kSingle, kFixedRate, kFixedDelay };
  struct Timer {
    TimerKey key;
    uint64_t generation;
    Mode mode;
    AnyMessage message;  // the TimerMessage sent
    absl::Duration interval;
    Cancellable task;
  };

  // `cell` owns this scheduler.
  explicit TimerScheduler(internal::ActorCell* cell) : cell_(cell) {}

  void Start(TimerKey key, AnyMessage message, Mode mode,
             absl::Duration initial_delay, absl::Duration interval);
  Cancellable Schedule(const Timer& timer, absl::Duration delay);
  // For the cell, with a TimerMessage taken from the mailbox: whether its
  // timer is still live (if not, the message is dropped). Ends a single
  // timer; re-arms a fixed-delay one.
  bool Accept(const internal::TimerMessage& message);

  internal::ActorCell* const cell_;
  // An actor has few timers: a vector searched in order.
  std::vector<Timer> timers_;
  uint64_t next_generation_ = 1;
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_TIMER_SCHEDULER_H_
