#ifndef CAIRN_BENCH_CLUSTER_ENTITY_H_
#define CAIRN_BENCH_CLUSTER_ENTITY_H_

// The far side's actor: an entity of the region, or a plain actor told
// directly (the same class, so that both rows pay for the same work).
// Answers every Work with an Ack naming itself and its process.

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "actor/actor.h"
#include "actor/actor_system.h"
#include "bench/cluster/cluster_bench.pb.h"

namespace cairn::bench::cluster {

// The id of the driver's entity number `i`.
inline std::string EntityId(int64_t i) { return absl::StrCat("e", i); }

class Entity final : public actor::Actor {
 public:
  explicit Entity(std::string name) {
    ack_.set_entity(std::move(name));
    Receive<Work>([this](const Work&) {
      if (ack_.host().empty()) {
        ack_.set_host(Context().System().address().ToString());
      }
      Sender().Tell(ack_);
    });
  }

 private:
  Ack ack_;
};

}  // namespace cairn::bench::cluster

#endif  // CAIRN_BENCH_CLUSTER_ENTITY_H_
