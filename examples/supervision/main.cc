// A tour of cairn's actor runtime, following the Akka.NET supervision guide:
// a supervisor whose child resumes, restarts and stops on different
// failures, asked for its state between crashes, then a graceful stop.
//
//   bazel run //examples/supervision
#include <cstdio>
#include <stdexcept>
#include <string>

#include "actor/actor_system.h"
#include "actor/ask.h"

namespace actor = cairn::actor;

struct Get {};
struct Crash {
  std::string kind;  // "arithmetic", "null", "argument"
};

struct ArithmeticError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct NullReference : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Child final : public actor::Actor {
 public:
  Child() {
    Receive<int>([this](int x) { state_ = x; });
    Receive<Get>([this](const Get&) { Sender().Tell(state_); });
    Receive<Crash>([](const Crash& c) {
      if (c.kind == "arithmetic") throw ArithmeticError("divide by zero");
      if (c.kind == "null") throw NullReference("null reference");
      throw std::invalid_argument("bad argument");
    });
  }
  void PreStart() override { std::printf("  child: started\n"); }
  void PostStop() override { std::printf("  child: stopped\n"); }

 private:
  int state_ = 0;
};

class Supervisor final : public actor::Actor {
 public:
  Supervisor() {
    Receive<actor::Props>([this](const actor::Props& p) {
      Sender().Tell(Context().ActorOf(p, "child"));
    });
  }
  std::unique_ptr<actor::SupervisorStrategy> SupervisorStrategy() override {
    return std::make_unique<actor::OneForOneStrategy>(
        10, absl::Minutes(1),
        actor::Decider()
            .On<ArithmeticError>(actor::Directive::kResume)
            .On<NullReference>(actor::Directive::kRestart)
            .On<std::invalid_argument>(actor::Directive::kStop)
            .Otherwise(actor::Directive::kEscalate),
        /*logging_enabled=*/false);
  }
};

int AskState(const actor::ActorRef& child) {
  return actor::Ask<int>(child, Get{}, absl::Seconds(3)).get();
}

int main() {
  auto config = cairn::hocon::Config::ParseString("akka.loglevel = WARNING");
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  auto system = actor::ActorSystem::Create("demo", *config);
  if (!system.ok()) {
    std::fprintf(stderr, "%s\n", system.status().ToString().c_str());
    return 1;
  }
  actor::ActorSystem& sys = **system;
  actor::ActorRef supervisor =
      sys.ActorOf(actor::Props::Create<Supervisor>(), "supervisor");
  actor::ActorRef child =
      actor::Ask<actor::ActorRef>(supervisor, actor::Props::Create<Child>(),
                                  absl::Seconds(3))
          .get();
  std::printf("created %s\n", child.Path().ToString().c_str());

  child.Tell(42);
  std::printf("state after Tell(42): %d\n", AskState(child));

  child.Tell(Crash{"arithmetic"});
  std::printf("after an arithmetic error (Resume): %d\n", AskState(child));

  child.Tell(Crash{"null"});
  std::printf("after a null reference (Restart): %d\n", AskState(child));

  child.Tell(Crash{"argument"});
  bool stopped = actor::GracefulStop(child, absl::Seconds(3)).get();
  std::printf("after a bad argument (Stop): child stopped = %s\n",
              stopped ? "yes" : "no");

  bool supervisor_stopped =
      actor::GracefulStop(supervisor, absl::Seconds(3)).get();
  std::printf("supervisor stopped gracefully = %s\n",
              supervisor_stopped ? "yes" : "no");
  sys.Terminate().wait();
  std::printf("actor system terminated\n");
  return 0;
}
