#include "bench/cluster/prober.h"

#include <chrono>
#include <map>
#include <utility>

#include "actor/actor.h"
#include "actor/any_message.h"
#include "bench/cluster/cluster_bench.pb.h"
#include "bench/cluster/die.h"
#include "bench/cluster/entity.h"
#include "sharding/message_extractor.h"

namespace cairn::bench::cluster {
namespace {

struct Tick {};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Prober final : public actor::Actor {
 public:
  Prober(actor::ActorRef region, int entities, std::string home,
         std::shared_ptr<ProbeRun> run)
      : region_(std::move(region)),
        home_(std::move(home)),
        run_(std::move(run)),
        entities_(static_cast<size_t>(entities)) {
    run_->moved_at_ns.assign(entities_.size(), 0);
    for (int i = 0; i < entities; ++i) index_[EntityId(i)] = i;
    Receive<Tick>([this](const Tick&) { Probe(); });
    Receive<NewHome>([this](const NewHome& next) { next_ = next.host; });
    Receive<Ack>([this](const Ack& ack) { Answered(ack); });
  }

  void PreStart() override {
    Timers().StartTimerAtFixedRate(std::string("tick"), Tick{}, kProbeTick);
    Probe();
  }

 private:
  struct Probed {
    int64_t probed_ns = 0;  // the probe in flight; 0: none
    bool answered = false;
    bool moved = false;
  };

  void Probe() {
    const int64_t now = NowNs();
    const int64_t resend = absl::ToInt64Nanoseconds(kProbeResend);
    for (size_t i = 0; i < entities_.size(); ++i) {
      Probed& e = entities_[i];
      if (e.moved || (e.probed_ns != 0 && now - e.probed_ns < resend)) continue;
      e.probed_ns = now;
      region_.Tell(sharding::ShardingEnvelope{EntityId(static_cast<int64_t>(i)),
                                              actor::AnyMessage::Of(Work())});
    }
  }

  void Answered(const Ack& ack) {
    auto found = index_.find(ack.entity());
    if (found == index_.end()) Die("an answer from no entity: " + ack.entity());
    const size_t i = found->second;
    Probed& e = entities_[i];
    e.probed_ns = 0;
    if (!next_.empty() && ack.host() == next_) {
      if (e.moved) return;
      e.moved = true;
      run_->moved_at_ns[i] = NowNs();
      if (++moved_ == entities_.size()) run_->moved.Set();
      return;
    }
    if (ack.host() != home_) {
      Die(ack.entity() + " answered from " + ack.host() + ", neither " + home_ +
          " nor its next home");
    }
    if (e.answered) return;
    e.answered = true;
    if (++answered_ == entities_.size()) run_->warm.Set();
  }

  const actor::ActorRef region_;
  const std::string home_;
  std::string next_;
  const std::shared_ptr<ProbeRun> run_;
  std::vector<Probed> entities_;
  std::map<std::string, size_t> index_;
  size_t answered_ = 0;
  size_t moved_ = 0;
};

}  // namespace

actor::Props ProberProps(actor::ActorRef region, int entities, std::string home,
                         std::shared_ptr<ProbeRun> run) {
  return actor::Props::Create<Prober>(std::move(region), entities,
                                      std::move(home), std::move(run));
}

}  // namespace cairn::bench::cluster
