#include "actor/testkit/test_kit.h"

#include <algorithm>
#include <thread>

#include "actor/testkit/deterministic.h"

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

TestKit::TestKit(Deterministic options) : max_turns_(options.max_turns) {
  if (options.clock == nullptr) {
    own_clock_ = std::make_unique<ManualClock>();
    options.clock = own_clock_.get();
  }
  manual_clock_ = options.clock;
  hocon::Config config =
      hocon::Config::ParseString(
          "akka.actor.default-dispatcher.type = CallingThreadDispatcher")
          .value()
          .WithFallback(options.config);
  ActorSystem::Options system_options;
  system_options.clock = manual_clock_;
  Init(ActorSystem::Create(std::move(options.name), config, system_options));
  test_actor_->SetMaxTurns(max_turns_);
}

void TestKit::Init(absl::StatusOr<std::unique_ptr<ActorSystem>> system) {
  if (!system.ok()) throw TestKitAssertion(system.status().ToString());
  system_ = *std::move(system);
  queue_ = internal::DeterministicQueue(*system_);
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

actor::internal::CallingThreadRunner& TestKit::Queue(const char* what) {
  if (queue_ == nullptr) {
    throw TestKitAssertion(absl::StrCat(
        what, " is for the deterministic mode (TestKit(Deterministic{}))"));
  }
  return *queue_;
}

bool TestKit::DispatchOne() {
  absl::StatusOr<bool> ran = Queue("DispatchOne").RunOne();
  if (!ran.ok()) throw TestKitAssertion(std::string(ran.status().message()));
  return *ran;
}

int TestKit::DispatchAll() {
  return internal::DispatchAllOrFail(Queue("DispatchAll"), max_turns_);
}

ManualClock& TestKit::TestClock() {
  Queue("TestClock");
  return *manual_clock_;
}

void TestKit::AwaitCondition(const std::function<bool()>& condition,
                             absl::Duration timeout, const std::string& what) {
  if (queue_ != nullptr) {
    DispatchAll();
    if (!condition()) {
      throw TestKitAssertion("deterministic mode: nothing is left to run and " +
                             what + " does not hold");
    }
    return;
  }
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
  if (queue_ != nullptr) {
    DispatchAll();
    assertion();
    return;
  }
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
