// akka.persistence.max-concurrent-recoveries at the actor level: of many
// persistent actors started together, only that many replay at once; each
// finished recovery lets the next one in, in the order they asked.

#include <atomic>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "actor/actor_system.h"
#include "actor/props.h"
#include "actor/testkit/test_kit.h"
#include "base/mutex.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/inmem/in_memory_plugin.h"
#include "persistence/internal/recovery_permitter.h"
#include "persistence/persistence.h"
#include "persistence/persistent_actor.h"
#include "persistence/storage/journal_wrapper.h"
#include "persistence/storage/plugin_registry.h"

namespace cairn::persistence {
namespace {

using actor::ActorRef;
using actor::Props;
using actor::testkit::TestKit;

// Holds every replay until the test lets it run on the journal it wraps.
class GatedReplayJournal final : public JournalWrapper {
 public:
  using JournalWrapper::JournalWrapper;
  ~GatedReplayJournal() override {
    for (Held& h : held_) {
      std::move(h.done)(absl::CancelledError("journal destroyed"));
    }
  }

  int held() const {
    base::MutexLock lock(&mu_);
    return static_cast<int>(held_.size());
  }
  // The persistence id of the oldest held replay, which it lets run.
  std::string ReleaseOldest() {
    Held h;
    {
      base::MutexLock lock(&mu_);
      h = std::move(held_.front());
      held_.pop_front();
    }
    std::string id = h.id;
    target().AsyncReplayMessages(std::move(h.id), h.from, h.to, h.max,
                                 std::move(h.on_event), std::move(h.done));
    return id;
  }

  void AsyncReplayMessages(std::string id, int64_t from, int64_t to,
                           int64_t max, ReplayCallback on_event,
                           DoneCallback done) override {
    base::MutexLock lock(&mu_);
    held_.push_back(Held{std::move(id), from, to, max, std::move(on_event),
                         std::move(done)});
  }

 private:
  struct Held {
    std::string id;
    int64_t from = 0;
    int64_t to = 0;
    int64_t max = 0;
    ReplayCallback on_event;
    DoneCallback done;
  };
  mutable base::Mutex mu_;
  std::deque<Held> held_ ABSL_GUARDED_BY(mu_);
};

struct Recovered {
  std::string id;
};

// Tells the probe its persistence id when its recovery completes.
class Recovering final : public PersistentActor {
 public:
  Recovering(std::string id, ActorRef probe)
      : id_(std::move(id)), probe_(std::move(probe)) {
    Recover<RecoveryCompleted>(
        [this](const RecoveryCompleted&) { probe_.Tell(Recovered{id_}); });
  }
  std::string PersistenceId() const override { return id_; }
  std::string JournalPluginId() const override { return "gated"; }

 private:
  std::string id_;
  ActorRef probe_;
};

TEST(RecoveryLimitTest, AtMostMaxConcurrentRecoveriesReplayAtOnce) {
  TestKit kit(R"(
    akka.persistence.journal.plugin = "akka.persistence.journal.inmem"
    akka.persistence.snapshot-store.plugin = "akka.persistence.snapshot-store.inmem"
    akka.persistence.max-concurrent-recoveries = 2
  )");
  std::atomic<GatedReplayJournal*> gate{nullptr};
  PersistenceSetup setup;
  setup.register_plugins = [&gate](PluginRegistry& plugins) {
    return plugins.RegisterJournal(
        "gated",
        [&gate](const PluginContext& context)
            -> absl::StatusOr<std::unique_ptr<Journal>> {
          auto journal = std::make_unique<GatedReplayJournal>(
              NewInMemoryJournal(context.serialization));
          gate.store(journal.get());
          return std::unique_ptr<Journal>(std::move(journal));
        });
  };
  Persistence& persistence = Persistence::Get(kit.Sys());
  ASSERT_OK(persistence.Setup(std::move(setup)));

  const std::vector<std::string> ids = {"r0", "r1", "r2", "r3"};
  for (const std::string& id : ids) {
    kit.Sys().ActorOf(Props::Create<Recovering>(id, kit.TestActor()));
  }
  // `replaying` actors hold a permit and wait in a replay; `waiting` ones
  // have not been given a permit.
  auto settles_at = [&](int replaying, int waiting) {
    kit.AwaitCondition(
        [&] {
          GatedReplayJournal* g = gate.load();
          return g != nullptr && g->held() == replaying &&
                 persistence.Permitter().waiting() == waiting;
        },
        actor::testkit::kDefaultExpectTimeout,
        absl::StrCat(replaying, " replaying and ", waiting, " waiting"));
  };
  settles_at(2, 2);
  for (int waiting = 1; waiting >= 0; --waiting) {
    const std::string released = gate.load()->ReleaseOldest();
    EXPECT_EQ(kit.ExpectMsg<Recovered>().id, released);
    settles_at(2, waiting);  // the finished one's permit went to the next
  }
  std::set<std::string> released;
  for (int i = 0; i < 2; ++i) released.insert(gate.load()->ReleaseOldest());
  std::set<std::string> recovered;
  for (int i = 0; i < 2; ++i) recovered.insert(kit.ExpectMsg<Recovered>().id);
  EXPECT_EQ(recovered, released);
  settles_at(0, 0);
  EXPECT_EQ(persistence.Permitter().free_permits(), 2);
}

}  // namespace
}  // namespace cairn::persistence
