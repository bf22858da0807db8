// Remoting between real OS processes on loopback: the test's actor system
// and nodes (//remote/testing:node) in processes of their own, each on a
// port it picked and printed. What a user relies on when an actor is in
// another process: Tell with the implicit sender, Ask, Forward, selections,
// a ref to a third process carried in a message, order per sender-receiver
// pair under many senders, a process that ends: its messages become dead
// letters, and a new one elsewhere works; a process restarted at the same
// address is a new incarnation; TLS between processes, refusing a process
// without it.
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_path.h"
#include "actor/actor_selection.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "remote/testing/node_messages.h"
#include "remote/testing/node_process.h"
#include "remote/testing/throwaway_ca.h"

namespace cairn::remote {
namespace {

using actor::ActorRef;
using actor::ActorSystem;
using actor::Props;
using actor::testkit::TestKitAssertion;
using actor::testkit::TestProbe;
using testing::Expect;
using testing::NodeProcess;
using testing::Numbered;
using testing::Relay;
using testing::Summary;

// Generous: the nodes start and answer under the sanitizers too.
constexpr absl::Duration kTimeout = absl::Seconds(20);

// Sends what it is told to `target` (itself the sender), and what comes
// back from `target` to `report`: a reply to an actor's implicit sender
// crosses the processes.
class Caller final : public actor::Actor {
 public:
  Caller(ActorRef target, ActorRef report) {
    Receive<std::string>([this, target, report](const std::string& s) {
      if (Sender() == target) {
        report.Tell(s);
      } else {
        target.Tell(s);
      }
    });
  }
};

// On "go", sends `n` Numbered (0 .. n-1) to `target`, itself the sender.
class Sequencer final : public actor::Actor {
 public:
  Sequencer(ActorRef target, int n) {
    Receive<std::string>([this, target, n](const std::string&) {
      for (int i = 0; i < n; ++i) target.Tell(Numbered{i}, Self());
    });
  }
};

class MultiProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(system_, testing::MakeNodeSystem("tester"));
  }
  void TearDown() override {
    if (system_ != nullptr) system_->Terminate().wait();
    // A node ends by coordinated shutdown and exits 0; under a sanitizer,
    // a report in a node makes it exit otherwise.
    for (NodeProcess& node : nodes_) {
      if (!node.running()) continue;  // the test ended it
      EXPECT_EQ(node.Terminate(absl::Now() + kTimeout), 0) << node.address();
    }
  }

  // A node started and listening, with `extra_config` added to its
  // settings. Kept until the test's end.
  absl::StatusOr<NodeProcess*> StartNode(const std::string& name,
                                         const std::string& extra_config = "") {
    absl::StatusOr<NodeProcess> node =
        NodeProcess::Start(name, absl::Now() + kTimeout, extra_config);
    if (!node.ok()) return node.status();
    nodes_.push_back(*std::move(node));
    return &nodes_.back();
  }

  ActorRef Resolve(const std::string& path) {
    return system_->ActorSelection(path).ResolveOne(kTimeout).get();
  }

  std::unique_ptr<ActorSystem> system_;
  // A deque: StartNode's pointers stay valid.
  std::deque<NodeProcess> nodes_;
};

TEST_F(MultiProcessTest, TellAskForwardAndSelectionsReachAnotherProcess) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  ActorRef echo = Resolve(beta->Path("/user/echo"));
  EXPECT_EQ(echo.Path().ToString(), beta->Path("/user/echo"));

  // Tell from an actor; the echo replies to its implicit sender.
  TestProbe probe(*system_);
  ActorRef caller =
      system_->ActorOf(Props::Create<Caller>(echo, probe.Ref()), "caller");
  caller.Tell(std::string("hello"));
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "beta echo:hello");

  EXPECT_EQ(
      actor::Ask<std::string>(echo, std::string("question"), kTimeout).get(),
      "beta echo:question");

  // The node's forwarder forwards to its echo: the answer comes to the
  // original sender, from the echo.
  Resolve(beta->Path("/user/forwarder")).Tell(std::string("via"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "beta echo:via");
  EXPECT_EQ(probe.LastSender(), echo);

  // A selection with a wildcard, told directly.
  system_->ActorSelection(beta->Path("/user/ech*"))
      .Tell(std::string("wild"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "beta echo:wild");
}

TEST_F(MultiProcessTest, AReplyFromAThirdProcessReachesTheAsker) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  ASSERT_OK_AND_ASSIGN(NodeProcess * gamma, StartNode("gamma"));
  ActorRef relay = Resolve(beta->Path("/user/relay"));

  // tester -> beta's relay -> gamma's echo (a path in the message) ->
  // tester: gamma connects to the tester, whose address it learnt from
  // the sender beta forwarded.
  EXPECT_EQ(actor::Ask<std::string>(
                relay, Relay{gamma->Path("/user/echo"), "hop"}, kTimeout)
                .get(),
            "gamma echo:hop");

  TestProbe probe(*system_);
  relay.Tell(Relay{gamma->Path("/user/echo"), "again"}, probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "gamma echo:again");
  EXPECT_EQ(probe.LastSender().Path().ToString(), gamma->Path("/user/echo"));
}

TEST_F(MultiProcessTest, EachSendersMessagesArriveInOrderUnderEightSenders) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  // Resolved, so connected: then all the messages are queued at most at
  // once, fewer than outbound-message-queue-size (3072), and none is
  // dropped.
  ActorRef checker = Resolve(beta->Path("/user/order-checker"));
  constexpr int kSenders = 8;
  constexpr int kEach = 375;
  TestProbe report(*system_);
  checker.Tell(Expect{kSenders * kEach}, report.Ref());
  ASSERT_EQ(report.ExpectMsg<std::string>(kTimeout), "expecting");

  std::vector<ActorRef> senders;
  for (int i = 0; i < kSenders; ++i) {
    senders.push_back(system_->ActorOf(Props::Create<Sequencer>(checker, kEach),
                                       absl::StrCat("sender-", i)));
  }
  for (const ActorRef& sender : senders) sender.Tell(std::string("go"));

  // Sent once every message has arrived.
  Summary summary = report.ExpectMsg<Summary>(kTimeout);
  EXPECT_TRUE(summary.out_of_order.empty())
      << summary.out_of_order.size() << " out of order reported, first "
      << summary.out_of_order.front();
  ASSERT_EQ(summary.received.size(), static_cast<size_t>(kSenders));
  for (const ActorRef& sender : senders) {
    EXPECT_EQ(summary.received[sender.Path().ToString()], kEach)
        << sender.Path().ToString();
  }
}

// Tells `to` (in a process that ended) one message after another until
// one is a dead letter here; whether one was, by the deadline.
//
// Delivery is at-most-once: a message written before this system has seen
// the connection end is lost without a trace, as in Akka. Once it has, each
// message to the ended process is a dead letter here.
bool SendsBecomeDeadLetters(ActorSystem& system, const ActorRef& to) {
  TestProbe dead(system);
  system.EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  const absl::Time deadline = absl::Now() + kTimeout;
  for (int i = 0; absl::Now() < deadline; ++i) {
    to.Tell(absl::StrCat("after-", i));
    try {
      actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(
          [](const actor::DeadLetter& d) {
            return d.message.As<std::string>() != nullptr &&
                   absl::StartsWith(*d.message.As<std::string>(), "after-");
          },
          "a dead letter of an after-N", absl::Seconds(1));
      EXPECT_EQ(letter.recipient, to);
      return true;
    } catch (const TestKitAssertion&) {
      // Not yet: this one was written to the connection that ended.
    }
  }
  return false;
}

TEST_F(MultiProcessTest, AfterAProcessEndsItsMessagesAreDeadLettersHere) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  ActorRef echo = Resolve(beta->Path("/user/echo"));
  ASSERT_EQ(
      actor::Ask<std::string>(echo, std::string("before"), kTimeout).get(),
      "beta echo:before");

  ASSERT_EQ(beta->Terminate(absl::Now() + kTimeout), 0);
  EXPECT_TRUE(SendsBecomeDeadLetters(*system_, echo));

  // This system goes on: a new process, on another port, answers.
  ASSERT_OK_AND_ASSIGN(NodeProcess * delta, StartNode("delta"));
  EXPECT_NE(delta->address(), beta->address());
  EXPECT_EQ(actor::Ask<std::string>(Resolve(delta->Path("/user/echo")),
                                    std::string("after"), kTimeout)
                .get(),
            "delta echo:after");
}

TEST_F(MultiProcessTest, AfterAProcessIsKilledItsMessagesAreDeadLettersHere) {
  // As above, with no goodbye: SIGKILL, its connections cut by the kernel.
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  ActorRef echo = Resolve(beta->Path("/user/echo"));
  ASSERT_EQ(
      actor::Ask<std::string>(echo, std::string("before"), kTimeout).get(),
      "beta echo:before");

  beta->Kill();
  EXPECT_TRUE(SendsBecomeDeadLetters(*system_, echo));

  ASSERT_OK_AND_ASSIGN(NodeProcess * delta, StartNode("delta"));
  EXPECT_EQ(actor::Ask<std::string>(Resolve(delta->Path("/user/echo")),
                                    std::string("after"), kTimeout)
                .get(),
            "delta echo:after");
}

// The port of a node's address (akka://name@127.0.0.1:port).
std::string PortOf(const std::string& address) {
  return address.substr(address.rfind(':') + 1);
}

TEST_F(MultiProcessTest, AProcessRestartedAtItsAddressIsANewIncarnation) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  const std::string address = beta->address();
  ActorRef old_echo = Resolve(beta->Path("/user/echo"));
  ASSERT_EQ(
      actor::Ask<std::string>(old_echo, std::string("before"), kTimeout).get(),
      "beta echo:before");
  ASSERT_EQ(beta->Terminate(absl::Now() + kTimeout), 0);

  // The same name on the same port: the same address, another process.
  ASSERT_OK_AND_ASSIGN(
      NodeProcess * again,
      StartNode("beta", absl::StrCat("akka.remote.artery.canonical.port = ",
                                     PortOf(address))));
  ASSERT_EQ(again->address(), address);
  // Asked until answered: delivery is at-most-once, and what this system
  // sends while it still takes the old process for there is lost (or
  // dropped while it waits to connect again, outbound-restart-backoff).
  ActorRef new_echo;
  const absl::Time deadline = absl::Now() + kTimeout;
  while (new_echo.IsNobody() && absl::Now() < deadline) {
    try {
      new_echo = system_->ActorSelection(again->Path("/user/echo"))
                     .ResolveOne(absl::Milliseconds(500))
                     .get();
    } catch (const std::runtime_error&) {
    }
  }
  ASSERT_FALSE(new_echo.IsNobody());
  EXPECT_NE(new_echo, old_echo);  // another uid
  TestProbe probe(*system_);
  new_echo.Tell(std::string("new"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "beta echo:new");

  // A ref to the old incarnation names nobody in the new one: its message
  // is dropped (here or there), never answered. Both go over the one
  // connection in order, so the first answer is to the second.
  old_echo.Tell(std::string("to the old one"), probe.Ref());
  new_echo.Tell(std::string("to the new one"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "beta echo:to the new one");
}

TEST_F(MultiProcessTest, OverTlsProcessesTalkAndOneWithoutTlsIsRefused) {
  const std::string certificates = testing::MakeThrowawayCertificates();
  if (certificates.empty()) {
    GTEST_SKIP() << "openssl is not installed (tools/setup.sh installs it)";
  }
  const std::string tls = testing::TlsConfig(certificates);
  system_->Terminate().wait();
  ASSERT_OK_AND_ASSIGN(system_, testing::MakeNodeSystem("tester", tls));
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta", tls));
  ActorRef echo = Resolve(beta->Path("/user/echo"));
  EXPECT_EQ(
      actor::Ask<std::string>(echo, std::string("sealed"), kTimeout).get(),
      "beta echo:sealed");

  // A system without TLS: the node refuses its stream, and what it sends
  // is a dead letter on its own side.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ActorSystem> plain,
                       testing::MakeNodeSystem("plain"));
  TestProbe dead(*plain);
  plain->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  ASSERT_OK_AND_ASSIGN(actor::ActorPath path,
                       actor::ActorPath::Parse(echo.Path().ToStringWithUid()));
  plain->ResolveActorRef(path).Tell(std::string("in the clear"));
  actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(kTimeout);
  ASSERT_NE(letter.message.As<std::string>(), nullptr);
  EXPECT_EQ(*letter.message.As<std::string>(), "in the clear");
  plain->Terminate().wait();
}

// Remote DeathWatch across processes: a watcher learns of a remote
// actor's stop, of its process shutting down, and, when its process is
// killed, from the failure detector (here with a short acceptable pause,
// so the bound is seconds rather than Akka's default 10 s).
class DeathWatchAcrossProcessesTest : public MultiProcessTest {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(system_, testing::MakeNodeSystem("tester", R"(
        akka.remote.watch-failure-detector {
          heartbeat-interval = 200ms
          acceptable-heartbeat-pause = 1s
          expected-response-after = 500ms
        })"));
  }

  // Watches `ref` from a probe, with a round trip after the watch so that
  // it is in place over there.
  std::unique_ptr<TestProbe> WatchedBy(const ActorRef& ref) {
    auto probe = std::make_unique<TestProbe>(*system_);
    probe->Watch(ref);
    ref.Tell(std::string("watched"), probe->Ref());
    probe->ExpectMsg<std::string>(kTimeout);
    return probe;
  }
};

TEST_F(DeathWatchAcrossProcessesTest, TerminatedWhenTheProcessShutsDown) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  ActorRef echo = Resolve(beta->Path("/user/echo"));
  std::unique_ptr<TestProbe> watcher = WatchedBy(echo);
  EXPECT_EQ(beta->Terminate(absl::Now() + kTimeout), 0);
  watcher->ExpectTerminated(echo, kTimeout);
}

TEST_F(DeathWatchAcrossProcessesTest, TerminatedWhenTheProcessIsKilled) {
  ASSERT_OK_AND_ASSIGN(NodeProcess * beta, StartNode("beta"));
  ActorRef echo = Resolve(beta->Path("/user/echo"));
  std::unique_ptr<TestProbe> watcher = WatchedBy(echo);
  beta->Kill();
  // No goodbye: only the failure detector can tell.
  actor::Terminated t = watcher->ExpectTerminated(echo, kTimeout);
  EXPECT_TRUE(t.address_terminated);
  EXPECT_FALSE(t.existence_confirmed);
}

}  // namespace
}  // namespace cairn::remote
