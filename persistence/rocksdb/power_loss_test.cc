// Power loss under the RocksDB journal, through the fault-injecting file
// system: the test writes a random number of events to a few streams, cuts
// the power at that point (everything not synced is lost, or a random part
// of it kept), reopens, and checks what survived; several rounds per seed,
// several seeds. With fsync on, every acknowledged event survives. With
// fsync off, each stream keeps a prefix of what was acknowledged: possibly
// shorter, never with a gap, never with an event that was not written.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_testing.h"
#include "gtest/gtest.h"
#include "persistence/rocksdb/rocksdb_options.h"
#include "persistence/rocksdb/rocksdb_plugin.h"
#include "persistence/rocksdb/testing/fault_injection_file_system.h"
#include "persistence/storage/journal.h"
#include "persistence/storage/testing/sync_calls.h"
#include "persistence/storage/testing/temp_dir.h"
#include "persistence/storage/testing/test_serialization.h"
#include "rocksdb/env.h"

namespace cairn::persistence {
namespace {

using testing::FaultInjectionFileSystem;
using testing::ReadHighestSequenceNr;
using testing::ReplayMessages;
using testing::SequenceNrs;
using testing::TempDir;
using testing::Texts;
using testing::WriteMessages;
using testing::WriteOutcome;

constexpr int kStreams = 4;
constexpr int kRounds = 6;
constexpr int kMaxWritesPerRound = 40;
constexpr uint32_t kSeeds[] = {1, 2, 3, 4, 5, 6, 7, 8};

// What the test wrote and had acknowledged, per stream: the payload of
// event n at [n - 1].
using Streams = std::map<std::string, std::vector<std::string>>;

// What one seed's run saw with fsync off.
struct Losses {
  int64_t events_lost = 0;
  // Rounds after which a stream kept some, not all, of the events written
  // to it in that round.
  int partly_kept = 0;
};

class PowerLossTest : public ::testing::TestWithParam<bool> {
 protected:
  bool Fsync() const { return GetParam(); }

  // One seed: rounds of write, power loss, reopen and check.
  void Run(uint32_t seed, Losses& losses) {
    absl::StatusOr<TempDir> dir = TempDir::Make("power-loss");
    ASSERT_OK(dir);
    auto file_system = std::make_shared<FaultInjectionFileSystem>();
    std::unique_ptr<rocksdb::Env> env =
        testing::NewFaultInjectionEnv(file_system);
    RocksDbOptions options;
    options.path = dir->path() + "/store";
    options.env = env.get();
    options.fsync = Fsync();
    std::mt19937 random(seed);
    Streams acknowledged;
    for (int s = 0; s < kStreams; ++s) {
      acknowledged[absl::StrCat("stream-", s)];
    }

    for (int round = 0; round <= kRounds; ++round) {
      SCOPED_TRACE(
          absl::StrCat("seed ", seed, ", after ", round, " power losses"));
      absl::StatusOr<RocksDbStore> opened = RocksDbStore::Open(options);
      ASSERT_OK(opened);
      std::optional<RocksDbStore> store = *std::move(opened);
      absl::StatusOr<std::unique_ptr<Journal>> made =
          store->NewJournal(serialization_);
      ASSERT_OK(made);
      std::unique_ptr<Journal> journal = *std::move(made);

      for (auto& [pid, events] : acknowledged) {
        ASSERT_NO_FATAL_FAILURE(CheckSurvivors(*journal, pid, events));
      }
      for (const auto& [pid, events] : acknowledged) {
        const size_t written = round_written_[pid];
        const size_t lost = before_loss_[pid] - events.size();
        losses.events_lost += static_cast<int64_t>(lost);
        if (written > 0 && lost > 0 && lost < written) ++losses.partly_kept;
      }
      if (round == kRounds) break;

      // Writes up to a point chosen at random, each acknowledged before
      // the next; then the power goes.
      round_written_.clear();
      const int writes =
          std::uniform_int_distribution<int>(1, kMaxWritesPerRound)(random);
      for (int w = 0; w < writes; ++w) {
        ASSERT_NO_FATAL_FAILURE(
            WriteSome(*journal, round, random, acknowledged));
      }
      for (const auto& [pid, events] : acknowledged) {
        before_loss_[pid] = events.size();
      }
      file_system->CutPower();
      journal.reset();
      store.reset();
      // Half the losses keep a random part of the unsynced data, as a disk
      // that wrote some of it back would.
      const bool keep_some = std::bernoulli_distribution(0.5)(random);
      std::mt19937 keep_random(random());
      absl::Status restored = file_system->RestorePower(
          keep_some ? FaultInjectionFileSystem::KeptUnsynced(
                          [&keep_random](const std::string&, uint64_t n) {
                            return std::uniform_int_distribution<uint64_t>(
                                0, n)(keep_random);
                          })
                    : nullptr);
      ASSERT_OK(restored);
    }
  }

  // One journal call: one or two AtomicWrites of one to three events
  // each, to streams chosen at random.
  void WriteSome(Journal& journal, int round, std::mt19937& random,
                 Streams& acknowledged) {
    std::uniform_int_distribution<int> stream(0, kStreams - 1);
    std::uniform_int_distribution<int> count(1, 3);
    const int atomic_writes = std::uniform_int_distribution<int>(1, 2)(random);
    std::vector<AtomicWrite> writes;
    std::vector<std::pair<std::string, std::vector<std::string>>> added;
    for (int a = 0; a < atomic_writes; ++a) {
      std::string pid = absl::StrCat("stream-", stream(random));
      if (!added.empty() && added.front().first == pid) continue;
      int64_t next = static_cast<int64_t>(acknowledged[pid].size()) + 1;
      AtomicWrite write;
      std::vector<std::string> payloads;
      for (int e = count(random); e > 0; --e, ++next) {
        std::string payload = absl::StrCat(pid, "-", next, "-round-", round);
        write.events.push_back(
            testing::Event(pid, next, serialization::Payload::Of(payload)));
        payloads.push_back(std::move(payload));
      }
      writes.push_back(std::move(write));
      added.emplace_back(pid, std::move(payloads));
    }
    WriteOutcome outcome = WriteMessages(journal, std::move(writes));
    ASSERT_OK(outcome.batch);
    for (const absl::Status& status : outcome.per_write) {
      ASSERT_OK(status);
    }
    for (auto& [pid, payloads] : added) {
      round_written_[pid] += payloads.size();
      for (std::string& payload : payloads) {
        acknowledged[pid].push_back(std::move(payload));
      }
    }
  }

  // With fsync on, exactly the acknowledged events are there. With fsync
  // off, a prefix of them; `acknowledged` becomes what survived, which the
  // next round writes after.
  void CheckSurvivors(Journal& journal, const std::string& pid,
                      std::vector<std::string>& acknowledged) {
    testing::ReplayOutcome replay =
        ReplayMessages(journal, pid, 1, kMaxSequenceNr, kMaxSequenceNr);
    ASSERT_OK(replay.status) << pid;
    const std::vector<int64_t> numbers = SequenceNrs(replay.events);
    const std::vector<std::string> texts = Texts(replay.events);
    for (size_t i = 0; i < numbers.size(); ++i) {
      ASSERT_EQ(numbers[i], static_cast<int64_t>(i) + 1)
          << pid << ": a gap before event " << numbers[i];
    }
    if (Fsync()) {
      ASSERT_EQ(texts, acknowledged) << pid << ": acknowledged events lost";
    } else {
      ASSERT_LE(texts.size(), acknowledged.size())
          << pid << ": events that were not written";
      ASSERT_EQ(texts, std::vector<std::string>(
                           acknowledged.begin(),
                           acknowledged.begin() +
                               static_cast<std::ptrdiff_t>(texts.size())))
          << pid << ": not a prefix of what was written";
      acknowledged.resize(texts.size());
    }
    absl::StatusOr<int64_t> highest = ReadHighestSequenceNr(journal, pid);
    ASSERT_OK(highest);
    EXPECT_EQ(*highest, static_cast<int64_t>(texts.size()))
        << pid << ": the highest sequence number disagrees with the events";
  }

  std::shared_ptr<const serialization::SerializationRegistry> serialization_ =
      testing::NewTestSerialization();
  // Per stream: events written in the current round, and acknowledged
  // before its power loss.
  std::map<std::string, size_t> round_written_;
  std::map<std::string, size_t> before_loss_;
};

TEST_P(PowerLossTest, KeepsWhatTheFsyncSettingPromises) {
  Losses losses;
  for (uint32_t seed : kSeeds) {
    round_written_.clear();
    before_loss_.clear();
    ASSERT_NO_FATAL_FAILURE(Run(seed, losses));
  }
  if (Fsync()) {
    EXPECT_EQ(losses.events_lost, 0);
  } else {
    // Else the power losses lost nothing, and this test would prove
    // nothing about them.
    EXPECT_GT(losses.events_lost, 0);
    EXPECT_GT(losses.partly_kept, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Fsync, PowerLossTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "On" : "Off";
                         });

}  // namespace
}  // namespace cairn::persistence
