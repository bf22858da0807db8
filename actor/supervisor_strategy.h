#ifndef CAIRN_ACTOR_SUPERVISOR_STRATEGY_H_
#define CAIRN_ACTOR_SUPERVISOR_STRATEGY_H_

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace cairn::actor {

// What a supervisor does with a child that failed.
enum class Directive {
  kResume,    // keep the child and its state; the failed message is lost
  kRestart,   // new instance from the same Props; state is lost
  kStop,      // stop the child
  kEscalate,  // fail the supervisor itself with the same exception
};

const char* DirectiveName(Directive d);

// Maps an exception to a directive: the first matching On<E> wins, else the
// Otherwise directive, else Escalate (as in Akka).
//   Decider().On<std::invalid_argument>(Directive::kStop)
//            .Otherwise(Directive::kRestart)
// A plain function can serve as well. Copyable; immutable once built.
class Decider {
 public:
  using Function = std::function<Directive(const std::exception_ptr&)>;

  Decider() = default;
  Decider(Function f) : function_(std::move(f)) {}  // NOLINT: implicit

  // Matches exceptions of type E and types derived from it.
  template <typename E>
  Decider& On(Directive directive) {
    cases_.emplace_back(
        [](const std::exception_ptr& e) {
          try {
            std::rethrow_exception(e);
          } catch (const E&) {
            return true;
          } catch (...) {
            return false;
          }
        },
        directive);
    return *this;
  }
  Decider& Otherwise(Directive directive) {
    otherwise_ = directive;
    return *this;
  }

  Directive operator()(const std::exception_ptr& cause) const;

 private:
  Function function_;
  std::vector<std::pair<bool (*)(const std::exception_ptr&), Directive>> cases_;
  std::optional<Directive> otherwise_;
};

// Restart bookkeeping of one child, kept by its parent.
struct ChildRestartStats {
  int restart_count = 0;
  std::optional<absl::Time> window_start;

  // Akka's rule: no limit -> yes; a limit without a window -> at most that
  // many restarts ever; a window -> at most that many (1 if unlimited) within
  // any window that starts at the first restart of a series.
  bool RequestRestartPermission(int max_nr_of_retries, absl::Duration within,
                                absl::Time now);
};

// How a parent handles its children's failures. Immutable; owned by the
// actor that returns it from Actor::SupervisorStrategy().
class SupervisorStrategy {
 public:
  virtual ~SupervisorStrategy() = default;

  // ActorInitializationException, ActorKilledException and
  // DeathPactException stop the child; any other exception restarts it.
  // Unlimited restarts.
  static Decider DefaultDecider();
  // One-for-one with DefaultDecider: what every actor uses unless it
  // overrides Actor::SupervisorStrategy().
  static std::unique_ptr<SupervisorStrategy> DefaultStrategy();
  // One-for-one that stops any failing child.
  static std::unique_ptr<SupervisorStrategy> StoppingStrategy();

  Directive Decide(const std::exception_ptr& cause) const {
    return decider_(cause);
  }
  // Applies the directive to all children, not only the failed one.
  bool all_for_one() const { return all_for_one_; }
  // -1: unlimited.
  int max_nr_of_retries() const { return max_nr_of_retries_; }
  // absl::InfiniteDuration(): no window.
  absl::Duration within_time_range() const { return within_time_range_; }
  // Whether failures are logged (Escalate never logs: the parent will).
  bool logging_enabled() const { return logging_enabled_; }

 protected:
  SupervisorStrategy(bool all_for_one, int max_nr_of_retries,
                     absl::Duration within_time_range, Decider decider,
                     bool logging_enabled)
      : all_for_one_(all_for_one),
        max_nr_of_retries_(max_nr_of_retries),
        within_time_range_(within_time_range),
        decider_(std::move(decider)),
        logging_enabled_(logging_enabled) {}

 private:
  bool all_for_one_;
  int max_nr_of_retries_;
  absl::Duration within_time_range_;
  Decider decider_;
  bool logging_enabled_;
};

// The directive applies to the failed child only.
class OneForOneStrategy final : public SupervisorStrategy {
 public:
  OneForOneStrategy(int max_nr_of_retries, absl::Duration within_time_range,
                    Decider decider, bool logging_enabled = true)
      : SupervisorStrategy(false, max_nr_of_retries, within_time_range,
                           std::move(decider), logging_enabled) {}
  explicit OneForOneStrategy(Decider decider, bool logging_enabled = true)
      : OneForOneStrategy(-1, absl::InfiniteDuration(), std::move(decider),
                          logging_enabled) {}
};

// The directive applies to every child of the supervisor.
class AllForOneStrategy final : public SupervisorStrategy {
 public:
  AllForOneStrategy(int max_nr_of_retries, absl::Duration within_time_range,
                    Decider decider, bool logging_enabled = true)
      : SupervisorStrategy(true, max_nr_of_retries, within_time_range,
                           std::move(decider), logging_enabled) {}
  explicit AllForOneStrategy(Decider decider, bool logging_enabled = true)
      : AllForOneStrategy(-1, absl::InfiniteDuration(), std::move(decider),
                          logging_enabled) {}
};

}  // namespace cairn::actor

#endif  // CAIRN_ACTOR_SUPERVISOR_STRATEGY_H_
