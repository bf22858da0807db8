#include "actor/testkit/test_kit.h"

#include <algorithm>
#include <thread>

namespace cairn::actor::testkit {

hocon::Config TestKit::TestConfig() {
  return hocon::Config::ParseString(R"(akka.loglevel = "WARNING")").value();
}

TestKit::TestKit(const hocon::Config& config, Clock* clock, std::string name) {
  ActorSystem::Options options;
  options.clock = clock;
  Init(ActorSystem::Create(std::move(name), config, options));
}

TestKit::TestKit(std::string_view hocon_text, Clock* clock) {
  absl::StatusOr<hocon::Config> config = hocon::Config::ParseString(hocon_text);
  if (!config.ok()) throw TestKitAssertion(config.status().ToString());
  ActorSystem::Options options;
  options.clock = clock;
  Init(
      ActorSystem::Create("test", config->WithFallback(TestConfig()), options));
}

void TestKit::Init(absl::StatusOr<std::unique_ptr<ActorSystem>> system) {
  if (!system.ok()) throw TestKitAssertion(system.status().ToString());
  system_ = *std::move(system);
  test_actor_ = std::make_unique<TestProbe>(*system_, "testActor");
  previous_self_ = actor::internal::CurrentSelf();
  actor::internal::SetCurrentSelf(test_actor_->Ref().impl());
}

TestKit::~TestKit() {
  actor::internal::SetCurrentSelf(previous_self_);
  system_->Terminate().wait();
  test_actor_.reset();
  system_.reset();
}

void TestKit::AwaitCondition(const std::function<bool()>& condition,
                             absl::Duration timeout, const std::string& what) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration pause = absl::Microseconds(100);
  while (!condition()) {
    if (absl::Now() >= deadline) {
      throw TestKitAssertion("timeout (" + absl::FormatDuration(timeout) +
                             ") while awaiting " + what);
    }
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(pause));
    pause = std::min(pause * 2, absl::Milliseconds(10));
  }
}

void TestKit::AwaitAssert(const std::function<void()>& assertion,
                          absl::Duration timeout, absl::Duration interval) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    try {
      assertion();
      return;
    } catch (...) {
      if (absl::Now() >= deadline) throw;
    }
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(std::min(
        interval, std::max(deadline - absl::Now(), absl::ZeroDuration()))));
  }
}

}  // namespace cairn::actor::testkit
