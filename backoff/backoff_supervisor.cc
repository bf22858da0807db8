#include "backoff/backoff_supervisor.h"

#include <stdexcept>
#include <string>

#include "actor/actor_system.h"
#include "actor/messages.h"

namespace cairn::backoff {

actor::Props BackoffSupervisor::Props(const BackoffOptions& options) {
  if (absl::Status valid = options.Validate(); !valid.ok()) {
    throw std::invalid_argument("invalid backoff options: " +
                                std::string(valid.message()));
  }
  return actor::Props::Create<BackoffSupervisor>(options);
}

BackoffSupervisor::BackoffSupervisor(BackoffOptions options)
    : options_(std::move(options)) {
  Receive<StartChild>([this](const StartChild&) {
    if (child_.IsNobody()) Start();
  });
  Receive<ResetRestartCount>([this](const ResetRestartCount& r) {
    if (r.generation == generation_ && !child_.IsNobody()) restart_count_ = 0;
  });
  Receive<Reset>([this](const Reset&) { restart_count_ = 0; });
  Receive<GetCurrentChild>([this](const GetCurrentChild&) {
    Sender().Tell(CurrentChild{child_}, Self());
  });
  Receive<GetRestartCount>([this](const GetRestartCount&) {
    Sender().Tell(RestartCount{restart_count_}, Self());
  });
  Receive<actor::Terminated>([this](const actor::Terminated& t) {
    if (t.actor == child_) ChildTerminated();
  });
  ReceiveAny([this](const actor::AnyMessage& message) {
    const bool final_stop =
        options_.final_stop_message() && options_.final_stop_message()(message);
    if (!child_.IsNobody()) {
      if (final_stop) final_stop_received_ = true;
      child_.TellAny(message, Sender());
      return;
    }
    if (final_stop) {
      Context().Stop(Self());
    } else if (options_.reply_while_stopped().has_value()) {
      Sender().TellAny(*options_.reply_while_stopped(), Self());
    } else {
      Context().System().DeadLetters().TellAny(message, Sender());
    }
  });
}

void BackoffSupervisor::PreStart() { Start(); }

void BackoffSupervisor::Start() {
  child_ = Context().Watch(
      Context().ActorOf(options_.child_props(), options_.child_name()));
  ++generation_;
  if (options_.auto_reset().has_value()) {
    reset_timer_ = Context().System().Scheduler().ScheduleTellOnce(
        *options_.auto_reset(), Self(), ResetRestartCount{generation_}, Self());
  }
}

void BackoffSupervisor::ChildTerminated() {
  child_ = actor::ActorRef();
  reset_timer_.Cancel();
  const bool restart =
      options_.mode() == BackoffOptions::Mode::kOnStop || restart_requested_;
  restart_requested_ = false;
  if (final_stop_received_ || !restart ||
      (options_.max_nr_of_retries() >= 0 &&
       restart_count_ >= options_.max_nr_of_retries())) {
    Context().Stop(Self());
    return;
  }
  const absl::Duration delay = CalculateDelay(
      restart_count_, options_.min_backoff(), options_.max_backoff(),
      options_.random_factor(), options_.NextRandom());
  ++restart_count_;
  Context().System().Scheduler().ScheduleTellOnce(delay, Self(), StartChild{},
                                                  Self());
}

std::unique_ptr<actor::SupervisorStrategy>
BackoffSupervisor::SupervisorStrategy() {
  if (options_.mode() == BackoffOptions::Mode::kOnStop) {
    return options_.MakeStrategy();
  }
  std::shared_ptr<actor::SupervisorStrategy> base = options_.MakeStrategy();
  // OnFailure: a Restart becomes a stop now and a start after the back-off
  // (the decider runs on this actor's thread, so it may set the flag).
  return std::make_unique<actor::OneForOneStrategy>(
      -1, absl::InfiniteDuration(),
      actor::Decider([this, base](const std::exception_ptr& e) {
        actor::Directive d = base->Decide(e);
        if (d != actor::Directive::kRestart) return d;
        restart_requested_ = true;
        return actor::Directive::kStop;
      }),
      base->logging_enabled());
}

}  // namespace cairn::backoff
