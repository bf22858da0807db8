// Remoting over TLS: two systems with certificates from a throwaway CA
// (made by `openssl` in the test) talk; a system that requires mutual
// authentication refuses one without a certificate, and one not speaking
// TLS at all; bad TLS settings fail ActorSystem::Create naming the key.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "actor/ask.h"
#include "actor/messages.h"
#include "actor/props.h"
#include "actor/testkit/test_probe.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "hocon/config.h"
#include "remote/testing/throwaway_ca.h"

namespace cairn::remote {
namespace {

using actor::ActorRef;
using actor::ActorSystem;
using actor::Props;
using actor::testkit::TestProbe;
using testing::MakeThrowawayCertificates;
using testing::TlsConfig;

constexpr absl::Duration kTimeout = absl::Seconds(10);

class Echo final : public actor::Actor {
 public:
  Echo() {
    Receive<std::string>([this](const std::string& s) { Sender().Tell(s); });
  }
};

absl::StatusOr<std::unique_ptr<ActorSystem>> MakeSystem(
    const std::string& name, const std::string& extra) {
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(
      absl::StrCat("akka.actor.provider = remote\n"
                   "akka.remote.artery.canonical.port = 0\n",
                   extra));
  if (!config.ok()) return config.status();
  return ActorSystem::Create(name, *config);
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeThrowawayCertificates();
    if (dir_.empty()) {
      GTEST_SKIP() << "openssl is not installed (tools/setup.sh installs it)";
    }
  }
  void TearDown() override {
    for (auto* system : {&alpha_, &beta_}) {
      if (*system != nullptr) (*system)->Terminate().wait();
    }
  }
  ActorRef EchoOfBetaFromAlpha() {
    ActorRef echo = beta_->ActorOf(Props::Create<Echo>(), "echo");
    absl::StatusOr<actor::ActorPath> path =
        actor::ActorPath::Parse(echo.Path().ToStringWithUid());
    EXPECT_OK(path);
    return alpha_->ResolveActorRef(*path);
  }

  std::string dir_;
  std::unique_ptr<ActorSystem> alpha_;
  std::unique_ptr<ActorSystem> beta_;
};

TEST_F(TlsTest, SystemsWithCertificatesTalkOverTls) {
  ASSERT_OK_AND_ASSIGN(alpha_, MakeSystem("alpha", TlsConfig(dir_)));
  ASSERT_OK_AND_ASSIGN(beta_, MakeSystem("beta", TlsConfig(dir_)));
  ActorRef echo = EchoOfBetaFromAlpha();
  EXPECT_EQ(
      actor::Ask<std::string>(echo, std::string("secret"), kTimeout).get(),
      "secret");
}

// Beta requires a certificate its CA signed; alpha has TLS and trusts
// beta's CA, but its own certificate is signed by no CA beta trusts: its
// messages never reach beta.
TEST_F(TlsTest, APeerWithoutATrustedCertificateIsRefused) {
  ASSERT_OK_AND_ASSIGN(beta_, MakeSystem("beta", TlsConfig(dir_)));
  const std::string untrusted = absl::StrCat(
      "akka.remote.artery.ssl {\n"
      "  enabled = on\n"
      "  certificate = \"",
      dir_,
      "/rogue.pem\"\n"
      "  private-key = \"",
      dir_,
      "/rogue.key\"\n"
      "  ca = \"",
      dir_,
      "/ca.pem\"\n"
      "}\n");
  ASSERT_OK_AND_ASSIGN(alpha_, MakeSystem("alpha", untrusted));
  TestProbe dead(*alpha_);
  alpha_->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  EchoOfBetaFromAlpha().Tell(std::string("let me in"));
  actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(kTimeout);
  ASSERT_NE(letter.message.As<std::string>(), nullptr);
  EXPECT_EQ(*letter.message.As<std::string>(), "let me in");
}

TEST_F(TlsTest, APeerWithoutTlsIsRefused) {
  ASSERT_OK_AND_ASSIGN(beta_, MakeSystem("beta", TlsConfig(dir_)));
  ASSERT_OK_AND_ASSIGN(alpha_, MakeSystem("alpha", ""));
  TestProbe dead(*alpha_);
  alpha_->EventStream().Subscribe<actor::DeadLetter>(dead.Ref());
  EchoOfBetaFromAlpha().Tell(std::string("plain"));
  actor::DeadLetter letter = dead.ExpectMsg<actor::DeadLetter>(kTimeout);
  ASSERT_NE(letter.message.As<std::string>(), nullptr);
  EXPECT_EQ(*letter.message.As<std::string>(), "plain");
}

TEST_F(TlsTest, BadTlsSettingsFailCreateNamingTheKey) {
  absl::StatusOr<std::unique_ptr<ActorSystem>> no_file = MakeSystem(
      "bad",
      absl::StrCat(TlsConfig(dir_),
                   "akka.remote.artery.ssl.ca = \"/nonexistent.pem\"\n"));
  ASSERT_FALSE(no_file.ok());
  EXPECT_EQ(no_file.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_file.status().message().find("ssl.ca"), std::string::npos)
      << no_file.status();

  absl::StatusOr<std::unique_ptr<ActorSystem>> not_pem = MakeSystem(
      "bad", absl::StrCat(TlsConfig(dir_), "akka.remote.artery.ssl.ca = \"",
                          dir_, ".ext\"\n"));
  ASSERT_FALSE(not_pem.ok());
  EXPECT_NE(not_pem.status().message().find("no PEM"), std::string::npos)
      << not_pem.status();

  absl::StatusOr<std::unique_ptr<ActorSystem>> empty =
      MakeSystem("bad", "akka.remote.artery.ssl.enabled = on\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("ssl.certificate"), std::string::npos)
      << empty.status();
}

}  // namespace
}  // namespace cairn::remote
