#include "bench/remote/caf_side.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "base/usable_cpus.h"
#include "bench/remote/far_side.h"
#include "bench/remote/side.h"
#include "bench/remote/workload.h"
#include "caf/all.hpp"
#include "caf/io/all.hpp"

namespace cairn::bench::remote {
namespace {

using go_atom = caf::atom_constant<caf::atom("go")>;
using batch_atom = caf::atom_constant<caf::atom("batch")>;

// As many scheduler threads as cairn's dispatcher has (the CPUs this
// process may run on: base::UsableCpus), and the middleman (CAF's network
// layer) loaded; the rest CAF's defaults.
struct CafConfig : caf::actor_system_config {
  CafConfig() {
    load<caf::io::middleman>();
    set("scheduler.max-threads", static_cast<size_t>(base::UsableCpus()));
  }
};

// ---------------------------------------------------------- far side ---

// Class-based: a function-based actor without arguments makes CAF's
// spawn dereference an empty shared_ptr (its init_fun_factory), which
// UBSan reports.
class Echo final : public caf::event_based_actor {
 public:
  using caf::event_based_actor::event_based_actor;

  caf::behavior make_behavior() override {
    return {[](int64_t id, int64_t sent_ns, const std::string& payload) {
      return std::make_tuple(id, sent_ns, payload);
    }};
  }
};

class Sink final : public caf::event_based_actor {
 public:
  using caf::event_based_actor::event_based_actor;

  caf::behavior make_behavior() override {
    return {
        [this](int64_t, int64_t, const std::string&) { ++received_; },
        [this](batch_atom, int64_t batch) {
          return std::make_tuple(batch_atom::value, batch, received_);
        },
    };
  }

 private:
  // Over the far side's life: the sender compares it with what it sent.
  int64_t received_ = 0;
};

// ---------------------------------------------------------- this side ---

struct PingState {
  int64_t left = 0;
  int outstanding = 0;
};

caf::behavior Ping(caf::stateful_actor<PingState>* self, caf::actor echo,
                   int64_t round_trips, int in_flight, Measurement* out,
                   Done* done) {
  self->state.left = round_trips;
  const std::string payload = Payload();
  return {
      [=](go_atom) {
        for (int i = 0; i < in_flight; ++i) {
          self->send(echo, int64_t{i}, NowNs(), payload);
        }
        self->state.outstanding = in_flight;
      },
      [=](int64_t id, int64_t sent_ns, const std::string& p) {
        out->round_trip_us.push_back(static_cast<double>(NowNs() - sent_ns) /
                                     1e3);
        PingState& st = self->state;
        --st.left;
        if (st.left >= st.outstanding) {
          self->send(echo, id, NowNs(), p);
        } else if (--st.outstanding == 0) {
          done->Set();
          self->quit();
        }
      },
  };
}

struct SenderState {
  int64_t sent = 0;
  int64_t batches = 0;
  int64_t answered = 0;
  int unanswered = 0;
};

// `received_before`: the sink's count when this sender starts.
caf::behavior OneWaySender(caf::stateful_actor<SenderState>* self,
                           caf::actor sink, int64_t messages,
                           int64_t received_before, int64_t* received_after,
                           Done* done) {
  const std::string payload = Payload();
  auto batch_size = [=](int64_t batch) {
    return std::min<int64_t>(kBatch, messages - batch * kBatch);
  };
  auto send_batch = [=] {
    SenderState& st = self->state;
    const int64_t n = batch_size(st.batches);
    for (int64_t i = 0; i < n; ++i) {
      self->send(sink, st.sent + i, NowNs(), payload);
    }
    self->send(sink, batch_atom::value, st.batches++);
    st.sent += n;
    ++st.unanswered;
  };
  return {
      [=](go_atom) {
        while (self->state.unanswered < kWindowBatches &&
               self->state.sent < messages) {
          send_batch();
        }
      },
      [=](batch_atom, int64_t batch, int64_t received) {
        SenderState& st = self->state;
        --st.unanswered;
        // Markers are answered in order: this one follows all that was
        // sent before it, and nothing may be missing.
        st.answered += batch_size(batch);
        if (received - received_before != st.answered) {
          Die("CAF: the sink had " +
              std::to_string(received - received_before) + " messages where " +
              std::to_string(st.answered) + " were sent: some were lost");
        }
        *received_after = received;
        if (st.sent < messages) {
          send_batch();
        } else if (st.unanswered == 0) {
          done->Set();
          self->quit();
        }
      },
  };
}

class CafSide final : public Side {
 public:
  CafSide()
      : far_(FarSide::Start("caf")),
        system_(config_),
        echo_(Connect(0)),
        sink_(Connect(1)) {}

  Measurement PingPong(int64_t round_trips, int in_flight) override {
    if (round_trips < in_flight) Die("CAF: fewer round trips than in flight");
    Measurement m;
    m.round_trip_us.reserve(static_cast<size_t>(round_trips));
    Done done;
    caf::actor ping =
        system_.spawn(Ping, echo_, round_trips, in_flight, &m, &done);
    const auto start = std::chrono::steady_clock::now();
    caf::anon_send(ping, go_atom::value);
    done.Await("CAF: ping-pong");
    m.rate = 2.0 * static_cast<double>(round_trips) / SecondsSince(start);
    std::sort(m.round_trip_us.begin(), m.round_trip_us.end());
    return m;
  }

  Measurement OneWay(int64_t messages) override {
    if (messages < 1) Die("CAF: one-way needs a message");
    Measurement m;
    Done done;
    caf::actor sender = system_.spawn(OneWaySender, sink_, messages,
                                      sink_received_, &sink_received_, &done);
    const auto start = std::chrono::steady_clock::now();
    caf::anon_send(sender, go_atom::value);
    done.Await("CAF: one-way");
    m.rate = static_cast<double>(messages) / SecondsSince(start);
    return m;
  }

 private:
  // The actor published on the far side's `index`th port (0 the echo, 1
  // the sink).
  caf::actor Connect(int index) {
    std::istringstream ports(far_.greeting());
    uint16_t port = 0;
    for (int i = 0; i <= index; ++i) ports >> port;
    if (!ports) Die("CAF: the far side said '" + far_.greeting() + "'");
    caf::expected<caf::actor> actor =
        system_.middleman().remote_actor("127.0.0.1", port);
    if (!actor) {
      Die("CAF: cannot reach port " + std::to_string(port) + ": " +
          system_.render(actor.error()));
    }
    return *actor;
  }

  FarSide far_;
  CafConfig config_;
  caf::actor_system system_;
  caf::actor echo_;
  caf::actor sink_;
  // The sink's count after the last one-way.
  int64_t sink_received_ = 0;
};

}  // namespace

std::unique_ptr<Side> StartCafSide() { return std::make_unique<CafSide>(); }

int ServeCaf() {
  CafConfig config;
  caf::actor_system system(config);
  caf::actor echo = system.spawn<Echo>();
  caf::actor sink = system.spawn<Sink>();
  caf::expected<uint16_t> echo_port =
      system.middleman().publish(echo, 0, "127.0.0.1");
  caf::expected<uint16_t> sink_port =
      system.middleman().publish(sink, 0, "127.0.0.1");
  int code = 0;
  if (!echo_port || !sink_port) {
    std::fprintf(
        stderr, "remote_vs_caf: CAF cannot publish: %s\n",
        system.render(echo_port ? sink_port.error() : echo_port.error())
            .c_str());
    code = 1;
  } else {
    Greet(std::to_string(*echo_port) + " " + std::to_string(*sink_port));
    AwaitEndOfInput();
  }
  // The system's destructor waits for every actor: both must end.
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(sink, caf::exit_reason::user_shutdown);
  return code;
}

}  // namespace cairn::bench::remote
