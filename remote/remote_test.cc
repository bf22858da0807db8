// Two actor systems in one process, connected over loopback by the gRPC
// transport: what a user relies on when an actor is elsewhere (Tell,
// Forward, Ask, selections, Identify, the runtime's messages, replies to
// the implicit sender), and what happens to what cannot be delivered.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_selection.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "actor/typed_ref.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "remote/actor_ref_json.h"
#include "remote/internal/wire.grpc.pb.h"
#include "remote/remote_settings.h"
#include "remote/remote_setup.h"
#include "remote/remote_test.pb.h"
#include "serialization/json_serialization.h"
#include "serialization/serialization.h"

namespace cairn::remote {
namespace {

using actor::ActorRef;
using actor::ActorSystem;
using actor::Props;
using actor::testkit::TestProbe;

constexpr absl::Duration kTimeout = absl::Seconds(10);

struct Deposit {
  std::string account;
  int amount = 0;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Deposit, account, amount)

// A JSON message with a ref in it (remote/actor_ref_json.h).
struct Greet {
  std::string text;
  ActorRef reply_to;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Greet, text, reply_to)
// The same with a typed reference (a typed API's command).
struct TypedGreet {
  std::string text;
  actor::ReplyTo<std::string> reply_to;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TypedGreet, text, reply_to)

// No serializer knows it.
struct Unserializable {
  int n = 0;
};

std::shared_ptr<const serialization::SerializationRegistry> Registry() {
  auto registry = std::make_shared<serialization::SerializationRegistry>();
  EXPECT_OK(serialization::RegisterJson<Deposit>(*registry, "test.Deposit"));
  EXPECT_OK(serialization::RegisterJson<Greet>(*registry, "test.Greet"));
  EXPECT_OK(
      serialization::RegisterJson<TypedGreet>(*registry, "test.TypedGreet"));
  return registry;
}

absl::StatusOr<std::unique_ptr<ActorSystem>> MakeSystem(
    const std::string& name, const std::string& extra = "") {
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
      absl::StrCat("akka.actor.provider = remote\n"
                   "akka.remote.artery.canonical.port = 0\n",
                   extra));
  if (!config.ok()) return config.status();
  actor::ActorSystemOptions options;
  options.setup = actor::ActorSystemSetup().With(RemoteSetup{Registry()});
  return ActorSystem::Create(name, *config, std::move(options));
}

class Echo final : public actor::Actor {
 public:
  Echo() {
    Receive<std::string>([this](const std::string& s) {
      if (s == "fail") {
        Sender().Tell(actor::StatusFailure{
            std::make_exception_ptr(std::invalid_argument("no such account"))});
      } else {
        Sender().Tell(std::string("echo:") + s);
      }
    });
    Receive<Deposit>([this](const Deposit& d) {
      Sender().Tell(Deposit{d.account, d.amount * 2});
    });
    Receive<Greet>(
        [](const Greet& g) { g.reply_to.Tell(std::string("re: ") + g.text); });
    Receive<TypedGreet>([](const TypedGreet& g) {
      g.reply_to.Tell(std::string("typed re: ") + g.text);
    });
  }
};

// Sends what it is told to `target`, and what comes back to `report`:
// replies go to the implicit sender, across the boundary.
class Relay final : public actor::Actor {
 public:
  Relay(ActorRef target, ActorRef report) {
    Receive<std::string>([this, target, report](const std::string& s) {
      if (Sender() == target) {
        report.Tell(s);
      } else {
        target.Tell(s);
      }
    });
  }
};

// Forwards to `target`: the original sender gets the answer.
class Forwarder final : public actor::Actor {
 public:
  explicit Forwarder(ActorRef target) {
    Receive<std::string>([target](const std::string& s) { target.Forward(s); });
  }
};

class RemoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<ActorSystem>> a = MakeSystem("alpha");
    ASSERT_OK(a);
    alpha_ = *std::move(a);
    absl::StatusOr<std::unique_ptr<ActorSystem>> b = MakeSystem("beta");
    ASSERT_OK(b);
    beta_ = *std::move(b);
    echo_ = beta_->ActorOf(Props::Create<Echo>(), "echo");
  }
  void TearDown() override {
    if (alpha_ != nullptr) alpha_->Terminate().wait();
    if (beta_ != nullptr) beta_->Terminate().wait();
  }

  // Beta's echo as alpha reaches it: its path in text, resolved.
  ActorRef RemoteEcho() {
    absl::StatusOr<actor::ActorPath> path =
        actor::ActorPath::Parse(echo_.Path().ToStringWithUid());
    EXPECT_OK(path);
    return alpha_->ResolveActorRef(*path);
  }
  std::string BetaPath(const std::string& rest) {
    return absl::StrCat(beta_->address().ToString(), rest);
  }

  std::unique_ptr<ActorSystem> alpha_;
  std::unique_ptr<ActorSystem> beta_;
  ActorRef echo_;
};

TEST_F(RemoteTest, PathsCarryTheBoundHostAndPort) {
  EXPECT_EQ(alpha_->address().host(), "127.0.0.1");
  EXPECT_GT(alpha_->address().port(), 0);
  EXPECT_NE(alpha_->address().port(), beta_->address().port());
  EXPECT_EQ(echo_.Path().ToString(),
            absl::StrCat("akka://beta@127.0.0.1:", beta_->address().port(),
                         "/user/echo"));
}

TEST_F(RemoteTest, ATellReachesTheRemoteActorAndTheReplyComesBack) {
  ActorRef remote = RemoteEcho();
  EXPECT_EQ(remote.Path(), echo_.Path());
  TestProbe probe(*alpha_);
  remote.Tell(std::string("hello"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "echo:hello");
  // The reply's sender is beta's echo, as alpha knows it: the same ref.
  EXPECT_EQ(probe.LastSender(), remote);
}

TEST_F(RemoteTest, TheImplicitSenderOfAnActorCrossesAndRepliesFindIt) {
  TestProbe probe(*alpha_);
  ActorRef relay =
      alpha_->ActorOf(Props::Create<Relay>(RemoteEcho(), probe.Ref()), "relay");
  relay.Tell(std::string("ping"));
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "echo:ping");
}

TEST_F(RemoteTest, ForwardKeepsTheOriginalSenderAcrossSystems) {
  // alpha's probe -> beta's forwarder -> beta's echo -> alpha's probe.
  beta_->ActorOf(Props::Create<Forwarder>(echo_), "forwarder");
  absl::StatusOr<actor::ActorPath> path =
      actor::ActorPath::Parse(BetaPath("/user/forwarder"));
  ASSERT_OK(path);
  TestProbe probe(*alpha_);
  alpha_->ResolveActorRef(*path).Tell(std::string("via"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "echo:via");
  EXPECT_EQ(probe.LastSender(), RemoteEcho());
}

TEST_F(RemoteTest, AskAcrossSystemsCompletesWithTheReply) {
  actor::Future<std::string> reply =
      actor::Ask<std::string>(RemoteEcho(), std::string("question"), kTimeout);
  EXPECT_EQ(reply.get(), "echo:question");
  // A type of the application's, through its registry.
  actor::Future<Deposit> doubled =
      actor::Ask<Deposit>(RemoteEcho(), Deposit{"acc-1", 21}, kTimeout);
  EXPECT_EQ(doubled.get().account, "acc-1");
  EXPECT_EQ(doubled.get().amount, 42);
}

class GreetingEcho final : public actor::Actor {
 public:
  GreetingEcho() {
    Receive<test::Greeting>([this](const test::Greeting& g) {
      test::Greeting reply = g;
      reply.set_text("re: " + g.text());
      Sender().Tell(std::move(reply));
    });
  }
};

TEST_F(RemoteTest, ProtobufMessagesCrossWithNothingRegistered) {
  beta_->ActorOf(Props::Create<GreetingEcho>(), "greetings");
  ActorRef remote = alpha_->ActorSelection(BetaPath("/user/greetings"))
                        .ResolveOne(kTimeout)
                        .get();
  test::Greeting hello;
  hello.set_text("hello");
  hello.add_numbers(1);
  hello.add_numbers(-2);
  test::Greeting reply =
      actor::Ask<test::Greeting>(remote, hello, kTimeout).get();
  EXPECT_EQ(reply.text(), "re: hello");
  ASSERT_EQ(reply.numbers_size(), 2);
  EXPECT_EQ(reply.numbers(1), -2);
}

TEST_F(RemoteTest, ARefInsideAMessageCrossesAndAnswersReachIt) {
  // No sender: the answer finds its way by the ref in the message only.
  TestProbe probe(*alpha_);
  RemoteEcho().Tell(Greet{"hi", probe.Ref()}, ActorRef::NoSender());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "re: hi");
}

TEST_F(RemoteTest, ATypedRefInsideAMessageCrossesToo) {
  TestProbe probe(*alpha_);
  RemoteEcho().Tell(TypedGreet{"hi", actor::ReplyTo<std::string>(probe.Ref())},
                    ActorRef::NoSender());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "typed re: hi");
}

TEST(ActorRefSerializationTest, ReadingARefOutsideATransportIsAnError) {
  EXPECT_EQ(SerializedActorPath(ActorRef()), "");
  EXPECT_EQ(ResolveSerializedActorPath("akka://x/user/a").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(ResolveSerializedActorPath(""));
}

TEST_F(RemoteTest, AFailureReplyFailsTheAskWithItsText) {
  actor::Future<std::string> reply =
      actor::Ask<std::string>(RemoteEcho(), std::string("fail"), kTimeout);
  try {
    reply.get();
    ADD_FAILURE() << "the Ask did not fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no such account"), std::string::npos)
        << e.what();
  }
}

TEST_F(RemoteTest, SelectionAndResolveOneFindARemoteActor) {
  actor::ActorSelection selection =
      alpha_->ActorSelection(BetaPath("/user/echo"));
  ActorRef found = selection.ResolveOne(kTimeout).get();
  EXPECT_EQ(found, RemoteEcho());

  TestProbe probe(*alpha_);
  alpha_->ActorSelection(BetaPath("/user/e*"))
      .Tell(std::string("wild"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "echo:wild");

  EXPECT_THROW(alpha_->ActorSelection(BetaPath("/user/nobody"))
                   .ResolveOne(kTimeout)
                   .get(),
               std::runtime_error);
}

TEST_F(RemoteTest, IdentifyAcrossSystemsAnswersWithTheSubject) {
  TestProbe probe(*alpha_);
  alpha_->ActorSelection(BetaPath("/user/echo"))
      .Tell(actor::Identify{actor::AnyMessage::Of(std::string("id-1"))},
            probe.Ref());
  actor::ActorIdentity identity =
      probe.ExpectMsg<actor::ActorIdentity>(kTimeout);
  ASSERT_NE(identity.message_id.As<std::string>(), nullptr);
  EXPECT_EQ(*identity.message_id.As<std::string>(), "id-1");
  EXPECT_EQ(identity.subject, RemoteEcho());
}

TEST_F(RemoteTest, APoisonPillFromAfarStopsTheActor) {
  TestProbe watcher(*beta_);
  watcher.Watch(echo_);
  RemoteEcho().Tell(actor::PoisonPill{});
  watcher.ExpectTerminated(echo_, kTimeout);
}

TEST_F(RemoteTest, MessagesBetweenAPairArriveInOrder) {
  // Many messages in a row from alpha to a probe of beta's.
  TestProbe target(*beta_);
  absl::StatusOr<actor::ActorPath> target_path = actor::ActorPath::Parse(
      beta_->ExposedPath(target.Ref()).ToStringWithUid());
  ASSERT_OK(target_path);
  ActorRef remote_target = alpha_->ResolveActorRef(*target_path);
  // Connected first; then fewer than outbound-message-queue-size (3072)
  // are queued at once, so none is dropped.
  remote_target.Tell(std::string("connect"));
  ASSERT_EQ(target.ExpectMsg<std::string>(kTimeout), "connect");
  constexpr int kMessages = 3000;
  for (int i = 0; i < kMessages; ++i) {
    remote_target.Tell(absl::StrCat(i));
  }
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(target.ExpectMsg<std::string>(kTimeout), absl::StrCat(i));
  }
}

TEST_F(RemoteTest, FramesOfManySmallMessagesStayWithinTheFrameSize) {
  // Sent at once to a peer not yet connected, the messages wait for the
  // handshake's answer and then go in batches: each frame is at most
  // maximum-frame-size with the envelopes' paths counted (1024 messages
  // of 230 bytes fit the limit, their paths do not). None is lost.
  TestProbe target(*beta_);
  TestProbe sender(*alpha_);
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(
      beta_->ExposedPath(target.Ref()).ToStringWithUid());
  ASSERT_OK(path);
  ActorRef remote_target = alpha_->ResolveActorRef(*path);
  const std::string padding(230, 'x');
  constexpr int kMessages = 3000;  // within outbound-message-queue-size
  for (int i = 0; i < kMessages; ++i) {
    remote_target.Tell(absl::StrCat(i, padding), sender.Ref());
  }
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(target.ExpectMsg<std::string>(kTimeout),
              absl::StrCat(i, padding));
  }
}

TEST_F(RemoteTest, AMessageNobodyCanSerializeIsADeadLetterAtTheSender) {
  TestProbe dead(*alpha_);
  alpha_->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  RemoteEcho().Tell(Unserializable{7});
  actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(kTimeout);
  ASSERT_NE(letter.message.As<Unserializable>(), nullptr);
  EXPECT_EQ(letter.recipient, RemoteEcho());
  // The association still works.
  TestProbe probe(*alpha_);
  RemoteEcho().Tell(std::string("after"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "echo:after");
}

TEST_F(RemoteTest, AMessageToAPathWithNoActorIsADeadLetterThere) {
  TestProbe dead(*beta_);
  beta_->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  absl::StatusOr<actor::ActorPath> path =
      actor::ActorPath::Parse(BetaPath("/user/nobody"));
  ASSERT_OK(path);
  alpha_->ResolveActorRef(*path).Tell(std::string("lost"));
  actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(kTimeout);
  ASSERT_NE(letter.message.As<std::string>(), nullptr);
  EXPECT_EQ(*letter.message.As<std::string>(), "lost");
}

TEST_F(RemoteTest, APathWithoutAUidReachesTheActorThatHasTheNameNow) {
  // Beta remembers what the path found; that must not outlive the actor.
  absl::StatusOr<actor::ActorPath> path =
      actor::ActorPath::Parse(BetaPath("/user/echo"));
  ASSERT_OK(path);
  ActorRef by_name = alpha_->ResolveActorRef(*path);
  TestProbe probe(*alpha_);
  by_name.Tell(std::string("one"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "echo:one");

  TestProbe watcher(*beta_);
  watcher.Watch(echo_);
  beta_->Stop(echo_);
  watcher.ExpectTerminated(echo_, kTimeout);
  ActorRef again = beta_->ActorOf(Props::Create<Echo>(), "echo");
  ASSERT_NE(again, echo_);
  by_name.Tell(std::string("two"), probe.Ref());
  EXPECT_EQ(probe.ExpectMsg<std::string>(kTimeout), "echo:two");
}

TEST_F(RemoteTest, ASenderMadeAgainUnderItsNameGetsItsOwnReplies) {
  // The transport remembers how it wrote a sender; the sender that has
  // the name next is another actor (another uid), and its replies are its.
  TestProbe report(*alpha_);
  for (const char* text : {"first", "second"}) {
    ActorRef relay = alpha_->ActorOf(
        Props::Create<Relay>(RemoteEcho(), report.Ref()), "relay");
    relay.Tell(std::string(text));
    EXPECT_EQ(report.ExpectMsg<std::string>(kTimeout),
              absl::StrCat("echo:", text));
    TestProbe watcher(*alpha_);
    watcher.Watch(relay);
    alpha_->Stop(relay);
    watcher.ExpectTerminated(relay, kTimeout);
  }
}

TEST_F(RemoteTest, MessagesToASystemThatIsNotThereAreDeadLetters) {
  // A port nothing listens on: beta's, after beta is gone.
  const std::string gone = BetaPath("/user/echo");
  beta_->Terminate().wait();
  beta_.reset();
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(gone);
  ASSERT_OK(path);
  TestProbe dead(*alpha_);
  alpha_->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  alpha_->ResolveActorRef(*path).Tell(std::string("anyone?"));
  actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(kTimeout);
  ASSERT_NE(letter.message.As<std::string>(), nullptr);
  EXPECT_EQ(*letter.message.As<std::string>(), "anyone?");
}

TEST_F(RemoteTest, AHandshakeToTheWrongSystemIsRefused) {
  // beta's host and port under another system's name.
  absl::StatusOr<actor::ActorPath> path = actor::ActorPath::Parse(absl::StrCat(
      "akka://gamma@127.0.0.1:", beta_->address().port(), "/user/echo"));
  ASSERT_OK(path);
  TestProbe dead(*alpha_);
  alpha_->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  alpha_->ResolveActorRef(*path).Tell(std::string("hi"));
  // Beta refuses the stream; what was sent in it is dropped.
  actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(kTimeout);
  ASSERT_NE(letter.message.As<std::string>(), nullptr);
  EXPECT_EQ(*letter.message.As<std::string>(), "hi");
}

// A peer speaking the wire directly, as a hostile or broken one would.
class RawPeer {
 public:
  explicit RawPeer(const ActorSystem& target)
      : stub_(wire::Transport::NewStub(grpc::CreateChannel(
            absl::StrCat("127.0.0.1:", target.address().port()),
            grpc::InsecureChannelCredentials()))),
        stream_(StartWithDeadline(stub_.get(), &context_)) {}

  bool Write(const wire::Frame& frame) { return stream_->Write(frame); }
  bool Read(wire::Frame* frame) { return stream_->Read(frame); }
  grpc::Status Finish() {
    stream_->WritesDone();
    return stream_->Finish();
  }

 private:
  // No stream of a test outlives kTimeout, whatever the system does.
  static std::unique_ptr<grpc::ClientReaderWriter<wire::Frame, wire::Frame>>
  StartWithDeadline(wire::Transport::Stub* stub, grpc::ClientContext* context) {
    context->set_deadline(absl::ToChronoTime(absl::Now() + kTimeout));
    return stub->Associate(context);
  }

  std::unique_ptr<wire::Transport::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<wire::Frame, wire::Frame>> stream_;
};

wire::Frame Handshake(const ActorSystem& to, uint32_t version = 1) {
  wire::Frame frame;
  frame.mutable_handshake()->set_protocol_version(version);
  frame.mutable_handshake()->set_from_address("akka://raw@127.0.0.1:1");
  frame.mutable_handshake()->set_from_uid(77);
  frame.mutable_handshake()->set_to_address(to.address().ToString());
  return frame;
}

TEST_F(RemoteTest, AnotherProtocolVersionIsRefusedWithTheReason) {
  RawPeer peer(*beta_);
  ASSERT_TRUE(peer.Write(Handshake(*beta_, 99)));
  wire::Frame answer;
  EXPECT_FALSE(peer.Read(&answer));
  grpc::Status status = peer.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("protocol version 99"),
            std::string::npos)
      << status.error_message();
}

TEST_F(RemoteTest, AStreamWithoutAHandshakeIsRefused) {
  RawPeer peer(*beta_);
  wire::Frame frame;
  frame.add_envelopes()->set_recipient(echo_.Path().ToStringWithUid());
  ASSERT_TRUE(peer.Write(frame));
  wire::Frame answer;
  EXPECT_FALSE(peer.Read(&answer));
  EXPECT_EQ(peer.Finish().error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

// What a peer asks beta to pass on to a third system is dropped with a
// warning: beta neither relays nor connects anywhere for it.
TEST_F(RemoteTest, APeerCannotMakeASystemRelay) {
  TestProbe warnings(*beta_);
  beta_->EventStream().Subscribe<actor::LogEvent>(warnings.Ref());
  auto expect_warning = [&](const std::string& part) {
    warnings.FishForMessage<actor::LogEvent>(
        [&](const actor::LogEvent& e) {
          return e.message.find(part) != std::string::npos;
        },
        kTimeout);
  };
  RawPeer peer(*beta_);
  ASSERT_TRUE(peer.Write(Handshake(*beta_)));
  wire::Frame answer;
  ASSERT_TRUE(peer.Read(&answer));
  EXPECT_EQ(answer.handshake().from_address(), beta_->address().ToString());

  const std::string third =
      absl::StrCat("akka://gamma@127.0.0.1:", alpha_->address().port());
  wire::Frame frame;
  wire::Envelope* direct = frame.add_envelopes();
  direct->set_recipient(third + "/user/x");
  direct->mutable_message()->set_serializer_id(1);  // a string
  direct->mutable_message()->set_bytes("relay me");
  wire::Envelope* selection = frame.add_envelopes();
  selection->set_recipient(beta_->address().ToString() + "/");
  selection->set_selection(true);
  selection->add_elements(third + "/user/x");
  *selection->mutable_message() = direct->message();
  ASSERT_TRUE(peer.Write(frame));
  expect_warning("is not an actor of this system");
  // Warnings are at most one a second per stream: the second is counted
  // and said with the next one, so it is looked for in a stream of its own.
  RawPeer second(*beta_);
  ASSERT_TRUE(second.Write(Handshake(*beta_)));
  wire::Frame only_selection;
  *only_selection.add_envelopes() = *selection;
  ASSERT_TRUE(second.Write(only_selection));
  expect_warning("is not a name");
  // Nor by naming, as a recipient, a third system's actor it first gave
  // as a sender (a path the stream remembers).
  RawPeer third_stream(*beta_);
  ASSERT_TRUE(third_stream.Write(Handshake(*beta_)));
  wire::Frame remembered;
  wire::Envelope* to_echo = remembered.add_envelopes();
  to_echo->set_recipient(BetaPath("/user/echo"));
  to_echo->set_sender(third + "/user/x#42");
  *to_echo->mutable_message() = direct->message();
  wire::Envelope* back = remembered.add_envelopes();
  back->set_recipient(third + "/user/x#42");
  *back->mutable_message() = direct->message();
  ASSERT_TRUE(third_stream.Write(remembered));
  expect_warning("/user/x#42 is not an actor of this system");
}

// System messages are taken once each, in order: a repeat is
// acknowledged but not taken again, one past a gap is dropped (the sender
// writes every unacknowledged one again); heartbeats are answered.
TEST_F(RemoteTest, SystemMessagesAreTakenOnceInOrderAndAcknowledged) {
  RawPeer peer(*beta_);
  ASSERT_TRUE(peer.Write(Handshake(*beta_)));
  wire::Frame answer;
  ASSERT_TRUE(peer.Read(&answer));
  ASSERT_TRUE(answer.has_handshake());
  auto watch = [&](uint64_t seq) {
    wire::SystemMessage m;
    m.set_seq(seq);
    m.mutable_watch()->set_watchee(echo_.Path().ToStringWithUid());
    m.mutable_watch()->set_watcher("akka://raw@127.0.0.1:1/user/w#5");
    return m;
  };
  wire::Frame frame;
  *frame.add_system_messages() = watch(1);
  ASSERT_TRUE(peer.Write(frame));
  ASSERT_TRUE(peer.Read(&answer));
  EXPECT_EQ(answer.ack(), 1u);

  frame.Clear();
  *frame.add_system_messages() = watch(1);  // a repeat
  *frame.add_system_messages() = watch(3);  // past a gap
  *frame.add_system_messages() = watch(2);
  frame.set_heartbeat(true);
  ASSERT_TRUE(peer.Write(frame));
  ASSERT_TRUE(peer.Read(&answer));
  EXPECT_EQ(answer.ack(), 2u);
  EXPECT_TRUE(answer.heartbeat_answer());

  frame.Clear();
  *frame.add_system_messages() = watch(3);  // written again: now taken
  ASSERT_TRUE(peer.Write(frame));
  ASSERT_TRUE(peer.Read(&answer));
  EXPECT_EQ(answer.ack(), 3u);
}

// A peer speaks only of its own actors' deaths: a notification naming
// another system's actor (here the receiver's own) is dropped, so no
// watcher gets a Terminated forged for an actor still alive.
TEST_F(RemoteTest, APeerCannotForgeTheDeathOfAnotherSystemsActor) {
  TestProbe warnings(*beta_);
  beta_->EventStream().Subscribe<actor::LogEvent>(warnings.Ref());
  TestProbe watcher(*beta_);
  watcher.Watch(echo_);
  RawPeer peer(*beta_);
  ASSERT_TRUE(peer.Write(Handshake(*beta_)));
  wire::Frame answer;
  ASSERT_TRUE(peer.Read(&answer));
  wire::Frame frame;
  wire::SystemMessage* m = frame.add_system_messages();
  m->set_seq(1);
  m->mutable_death_watch_notification()->set_subject(
      echo_.Path().ToStringWithUid());
  m->mutable_death_watch_notification()->set_watcher(
      beta_->ExposedPath(watcher.Ref()).ToStringWithUid());
  m->mutable_death_watch_notification()->set_existence_confirmed(true);
  ASSERT_TRUE(peer.Write(frame));
  warnings.FishForMessage<actor::LogEvent>(
      [](const actor::LogEvent& e) {
        return e.message.find("its subject is not the peer's") !=
               std::string::npos;
      },
      kTimeout);
  // The echo is alive, and its watcher was told nothing.
  echo_.Tell(std::string("alive"), watcher.Ref());
  EXPECT_EQ(watcher.ExpectMsg<std::string>(kTimeout), "echo:alive");
}

// A peer that connects and says nothing does not hold its stream for
// ever: after handshake-timeout the stream is ended.
TEST(RemoteHandshakeTest, APeerThatNeverSendsItsHandshakeIsCutOff) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system = MakeSystem(
      "quiet", "akka.remote.artery.advanced.handshake-timeout = 1s\n");
  ASSERT_OK(system);
  {
    RawPeer peer(**system);
    wire::Frame answer;
    EXPECT_FALSE(peer.Read(&answer));  // returns when the stream ends
    grpc::Status status = peer.Finish();
    // The system's refusal, not the test's own deadline.
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
    EXPECT_NE(status.error_message().find("no handshake within"),
              std::string::npos)
        << status.error_message();
  }
  (*system)->Terminate().wait();
}

TEST(RemoteSettingsTest, BadSettingsFailCreateNamingTheKey) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> system =
      MakeSystem("bad", "akka.remote.artery.canonical.port = 70000\n");
  ASSERT_FALSE(system.ok());
  EXPECT_EQ(system.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(system.status().message().find("canonical.port"), std::string::npos)
      << system.status();
}

TEST(RemoteSettingsTest, APortInUseFailsCreate) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> first = MakeSystem("first");
  ASSERT_OK(first);
  absl::StatusOr<std::unique_ptr<ActorSystem>> second =
      MakeSystem("second", absl::StrCat("akka.remote.artery.canonical.port = ",
                                        (*first)->address().port(), "\n"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable)
      << second.status();
  (*first)->Terminate().wait();
}

TEST(RemoteSettingsTest, DefaultsAreAkkasExceptTheLoopbackHost) {
  absl::StatusOr<hocon::Config> config = hocon::Config::Load(hocon::Config());
  ASSERT_OK(config);
  absl::StatusOr<RemoteSettings> settings = RemoteSettings::FromConfig(*config);
  ASSERT_OK(settings);
  EXPECT_EQ(settings->canonical_hostname, "127.0.0.1");
  EXPECT_EQ(settings->canonical_port, 25520);
  EXPECT_EQ(settings->bind_port, -1);
  EXPECT_EQ(settings->maximum_frame_size, 256 * 1024);
  EXPECT_EQ(settings->outbound_message_queue_size, 3072);
}

}  // namespace
}  // namespace cairn::remote
