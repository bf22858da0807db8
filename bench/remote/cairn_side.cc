#include "bench/remote/cairn_side.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/actor_selection.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "base/usable_cpus.h"
#include "bench/remote/far_side.h"
#include "bench/remote/remote_bench.pb.h"
#include "bench/remote/side.h"
#include "bench/remote/workload.h"
#include "hocon/config.h"

namespace cairn::bench::remote {
namespace {

using actor::ActorRef;
using actor::Props;

std::unique_ptr<actor::ActorSystem> MakeSystem(const std::string& name) {
  const int threads = base::UsableCpus();
  absl::StatusOr<hocon::Config> config =
      hocon::Config::ParseString(absl::StrCat(R"(
    akka.loglevel = WARNING
    akka.actor.provider = remote
    akka.remote.artery.canonical.hostname = "127.0.0.1"
    akka.remote.artery.canonical.port = 0
    akka.actor.default-dispatcher.fork-join-executor {
      parallelism-min = )",
                                              threads, R"(
      parallelism-max = )",
                                              threads, R"(
    }
  )"));
  if (!config.ok()) Die(config.status().ToString());
  absl::StatusOr<std::unique_ptr<actor::ActorSystem>> system =
      actor::ActorSystem::Create(name, *config);
  if (!system.ok()) Die(system.status().ToString());
  return *std::move(system);
}

// ---------------------------------------------------------- far side ---

class Echo final : public actor::Actor {
 public:
  Echo() {
    Receive<Ball>([this](const Ball& ball) { Sender().Tell(ball); });
  }
};

class Sink final : public actor::Actor {
 public:
  Sink() {
    Receive<Ball>([this](const Ball&) { ++received_; });
    Receive<BatchEnd>([this](const BatchEnd& end) {
      BatchEnd answer = end;
      answer.set_received(received_);
      Sender().Tell(answer);
    });
  }

 private:
  // Over the far side's life: the sender compares it with what it sent.
  int64_t received_ = 0;
};

// ---------------------------------------------------------- this side ---

// Starts a pattern's actor (a local message: it never crosses).
struct Go {};

Ball NewBall(int64_t id, const std::string& payload) {
  Ball ball;
  ball.set_id(id);
  ball.set_sent_ns(NowNs());
  ball.set_payload(payload);
  return ball;
}

class Ping final : public actor::Actor {
 public:
  Ping(ActorRef echo, int64_t round_trips, int in_flight, Measurement* out,
       Done* done)
      : echo_(std::move(echo)), left_(round_trips), out_(out), done_(done) {
    Receive<Go>([this, in_flight](const Go&) {
      for (int i = 0; i < in_flight; ++i) echo_.Tell(NewBall(i, payload_));
      outstanding_ = in_flight;
    });
    Receive<Ball>([this](const Ball& ball) {
      out_->round_trip_us.push_back(
          static_cast<double>(NowNs() - ball.sent_ns()) / 1e3);
      --left_;
      if (left_ >= outstanding_) {
        echo_.Tell(NewBall(ball.id(), ball.payload()));
      } else if (--outstanding_ == 0) {
        done_->Set();
      }
    });
  }

 private:
  const std::string payload_ = Payload();
  ActorRef echo_;
  int64_t left_;
  int outstanding_ = 0;
  Measurement* out_;
  Done* done_;
};

class OneWaySender final : public actor::Actor {
 public:
  // `received_before`: the sink's count when this sender starts.
  OneWaySender(ActorRef sink, int64_t messages, int64_t received_before,
               int64_t* received_after, Done* done)
      : sink_(std::move(sink)),
        messages_(messages),
        received_before_(received_before),
        received_after_(received_after),
        done_(done) {
    Receive<Go>([this](const Go&) {
      while (unanswered_ < kWindowBatches && sent_ < messages_) SendBatch();
    });
    Receive<BatchEnd>([this](const BatchEnd& end) {
      --unanswered_;
      // Markers are answered in order: this one follows all that was sent
      // before it, and nothing may be missing.
      answered_ += BatchSize(end.batch());
      if (end.received() - received_before_ != answered_) {
        Die(absl::StrCat("cairn: the sink had ",
                         end.received() - received_before_, " messages where ",
                         answered_, " were sent: some were lost"));
      }
      *received_after_ = end.received();
      if (sent_ < messages_) {
        SendBatch();
      } else if (unanswered_ == 0) {
        done_->Set();
      }
    });
  }

 private:
  int64_t BatchSize(int64_t batch) const {
    return std::min<int64_t>(kBatch, messages_ - batch * kBatch);
  }

  void SendBatch() {
    const int64_t n = BatchSize(batches_);
    for (int64_t i = 0; i < n; ++i) sink_.Tell(NewBall(sent_ + i, payload_));
    BatchEnd end;
    end.set_batch(batches_++);
    sink_.Tell(end);
    sent_ += n;
    ++unanswered_;
  }

  const std::string payload_ = Payload();
  ActorRef sink_;
  const int64_t messages_;
  const int64_t received_before_;
  int64_t* received_after_;
  int64_t sent_ = 0;
  int64_t answered_ = 0;
  int64_t batches_ = 0;
  int unanswered_ = 0;
  Done* done_;
};

class CairnSide final : public Side {
 public:
  CairnSide()
      : far_(FarSide::Start("cairn")),
        system_(MakeSystem("near")),
        echo_(Resolve("/user/echo")),
        sink_(Resolve("/user/sink")) {}

  ~CairnSide() override {
    if (!system_->Terminate().wait_for(absl::Seconds(30))) {
      Die("cairn: the system did not terminate in 30 s");
    }
  }

  Measurement PingPong(int64_t round_trips, int in_flight) override {
    if (round_trips < in_flight) Die("cairn: fewer round trips than in flight");
    Measurement m;
    m.round_trip_us.reserve(static_cast<size_t>(round_trips));
    Done done;
    ActorRef ping = system_->ActorOf(
        Props::Create<Ping>(echo_, round_trips, in_flight, &m, &done));
    const auto start = std::chrono::steady_clock::now();
    ping.Tell(Go{});
    done.Await("cairn: ping-pong");
    m.rate = 2.0 * static_cast<double>(round_trips) / SecondsSince(start);
    system_->Stop(ping);
    std::sort(m.round_trip_us.begin(), m.round_trip_us.end());
    return m;
  }

  Measurement OneWay(int64_t messages) override {
    if (messages < 1) Die("cairn: one-way needs a message");
    Measurement m;
    Done done;
    ActorRef sender = system_->ActorOf(Props::Create<OneWaySender>(
        sink_, messages, sink_received_, &sink_received_, &done));
    const auto start = std::chrono::steady_clock::now();
    sender.Tell(Go{});
    done.Await("cairn: one-way");
    m.rate = static_cast<double>(messages) / SecondsSince(start);
    system_->Stop(sender);
    return m;
  }

 private:
  ActorRef Resolve(const std::string& path) {
    try {
      return system_->ActorSelection(far_.greeting() + path)
          .ResolveOne(absl::Seconds(20))
          .get();
    } catch (const std::exception& e) {
      Die("cairn: cannot reach " + far_.greeting() + path + ": " + e.what());
    }
  }

  FarSide far_;
  std::unique_ptr<actor::ActorSystem> system_;
  ActorRef echo_;
  ActorRef sink_;
  // The sink's count after the last one-way.
  int64_t sink_received_ = 0;
};

}  // namespace

std::unique_ptr<Side> StartCairnSide() { return std::make_unique<CairnSide>(); }

int ServeCairn() {
  std::unique_ptr<actor::ActorSystem> system = MakeSystem("far");
  system->ActorOf(Props::Create<Echo>(), "echo");
  system->ActorOf(Props::Create<Sink>(), "sink");
  Greet(system->address().ToString());
  AwaitEndOfInput();
  return system->Terminate().wait_for(absl::Seconds(30)) ? 0 : 1;
}

}  // namespace cairn::bench::remote
