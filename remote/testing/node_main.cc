// A node of the multi-process test (remote/multi_process_test.cc): an actor
// system on a free port of 127.0.0.1, named by its argument, with
//
//   /user/echo           answers a string s with "<name> echo:s"
//   /user/forwarder      forwards a string to the echo (the sender stays)
//   /user/relay          forwards a Relay's text to the path it names
//   /user/order-checker  checks each sender's Numbered come in order
//
// A second argument is HOCON added to its settings (a port of its own,
// TLS). It prints its address (akka://<name>@127.0.0.1:<port>) as the
// first line of its stdout once it listens, then runs until SIGTERM, which
// runs coordinated shutdown: it exits 0 once the system has terminated.
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_path.h"
#include "actor/actor_system.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "remote/testing/node_messages.h"

namespace cairn::remote::testing {
namespace {

using actor::ActorRef;
using actor::Props;

class Echo final : public actor::Actor {
 public:
  explicit Echo(std::string name) {
    Receive<std::string>([this, name](const std::string& s) {
      Sender().Tell(absl::StrCat(name, " echo:", s));
    });
  }
};

class Forwarder final : public actor::Actor {
 public:
  explicit Forwarder(ActorRef target) {
    Receive<std::string>([target](const std::string& s) { target.Forward(s); });
  }
};

class RelayActor final : public actor::Actor {
 public:
  RelayActor() {
    Receive<Relay>([this](const Relay& r) {
      absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(r.to);
      if (!path.ok()) {
        Sender().Tell(actor::StatusFailure{std::make_exception_ptr(
            std::invalid_argument(std::string(path.status().message())))});
        return;
      }
      Context().System().ResolveActorRef(*path).Forward(r.text);
    });
  }
};

class OrderChecker final : public actor::Actor {
 public:
  OrderChecker() {
    Receive<Expect>([this](const Expect& e) {
      report_ = Sender();
      total_ = e.total;
      count_ = 0;
      next_.clear();
      summary_ = Summary{};
      Sender().Tell(std::string("expecting"));
    });
    Receive<Numbered>([this](const Numbered& n) {
      const std::string from = Sender().Path().ToString();
      int& next = next_[from];
      if (n.seq != next && summary_.out_of_order.size() < kMaxReported) {
        summary_.out_of_order.push_back(
            absl::StrCat(from, ": ", n.seq, " where ", next, " was due"));
      }
      next = n.seq + 1;
      ++summary_.received[from];
      if (++count_ == total_) report_.Tell(summary_);
    });
  }

 private:
  static constexpr size_t kMaxReported = 20;
  ActorRef report_;
  int total_ = 0;
  int count_ = 0;
  std::map<std::string, int> next_;
  Summary summary_;
};

int Run(const std::string& name, const std::string& extra_config) {
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      MakeNodeSystem(name, extra_config);
  if (!system.ok()) {
    std::fprintf(stderr, "node %s: %s\n", name.c_str(),
                 system.status().ToString().c_str());
    return 1;
  }
  ActorRef echo = (*system)->ActorOf(Props::Create<Echo>(name), "echo");
  (*system)->ActorOf(Props::Create<Forwarder>(echo), "forwarder");
  (*system)->ActorOf(Props::Create<RelayActor>(), "relay");
  (*system)->ActorOf(Props::Create<OrderChecker>(), "order-checker");
  std::printf("%s\n", (*system)->address().ToString().c_str());
  std::fflush(stdout);
  (*system)->WhenTerminated().wait();
  return 0;
}

}  // namespace
}  // namespace cairn::remote::testing

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s SYSTEM_NAME [HOCON]\n", argv[0]);
    return 2;
  }
  return cairn::remote::testing::Run(argv[1], argc == 3 ? argv[2] : "");
}
