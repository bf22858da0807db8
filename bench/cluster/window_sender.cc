#include "bench/cluster/window_sender.h"

#include <chrono>
#include <utility>

#include "absl/time/time.h"
#include "actor/actor.h"
#include "actor/props.h"
#include "bench/cluster/die.h"
#include "bench/cluster/latch.h"

namespace cairn::bench::cluster {
namespace {

// Starts the sender (a local message: it never crosses).
struct Go {};

class WindowSender final : public actor::Actor {
 public:
  WindowSender(Route route, int64_t messages, int window, std::string host,
               Latch* done)
      : route_(std::move(route)),
        messages_(messages),
        window_(window),
        host_(std::move(host)),
        done_(done) {
    work_.set_payload(std::string(kPayloadBytes, 'x'));
    Receive<Go>([this](const Go&) {
      while (sent_ < messages_ && sent_ < window_) Send();
    });
    Receive<Ack>([this](const Ack& ack) {
      if (ack.host() != host_) {
        Die(ack.entity() + " answered from " + ack.host() + ", not " + host_);
      }
      if (++acked_ == messages_) done_->Set();
      if (sent_ < messages_) Send();
    });
  }

 private:
  void Send() { route_(sent_++, work_); }

  Route route_;
  const int64_t messages_;
  const int window_;
  const std::string host_;
  Latch* const done_;
  Work work_;
  int64_t sent_ = 0;
  int64_t acked_ = 0;
};

}  // namespace

double MeasureRate(actor::ActorSystem& system, Route route, int64_t messages,
                   int window, const std::string& host) {
  if (messages < 1 || window < 1) Die("MeasureRate: nothing to send");
  Latch done;
  actor::ActorRef sender = system.ActorOf(actor::Props::Create<WindowSender>(
      std::move(route), messages, window, host, &done));
  const auto start = std::chrono::steady_clock::now();
  sender.Tell(Go{});
  done.Await("the throughput run's last acknowledgement", absl::Minutes(5));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  system.Stop(sender);
  return static_cast<double>(messages) / seconds;
}

}  // namespace cairn::bench::cluster
