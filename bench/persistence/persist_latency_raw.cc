#include "bench/persistence/persist_latency_raw.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "base/mutex.h"
#include "bench/persistence/persistence_benchmark_support.h"
#include "bench/persistence/raw_db.h"
#include "rocksdb/write_batch.h"

namespace cairn::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Queued {
  int stream = 0;
  int64_t sequence_nr = 0;
  Clock::time_point stamp;
  bool recorded = false;
};

// The driver's events on their way to the writer. Thread safe.
class WriteQueue {
 public:
  void Push(const Queued& event) {
    {
      base::MutexLock lock(&mu_);
      queued_.push_back(event);
    }
    ready_.Signal();
  }

  // No more events come.
  void Close() {
    {
      base::MutexLock lock(&mu_);
      closed_ = true;
    }
    ready_.Signal();
  }

  // Waits for events, then takes all that are queued; none once the
  // queue is closed and empty.
  std::vector<Queued> TakeAll() {
    base::MutexLock lock(&mu_);
    while (queued_.empty() && !closed_) ready_.Wait(&mu_);
    return std::exchange(queued_, {});
  }

 private:
  base::Mutex mu_;
  base::CondVar ready_;
  std::vector<Queued> queued_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

void AppendBigEndian(int64_t value, std::string& out) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out.push_back(
        static_cast<char>((static_cast<uint64_t>(value) >> shift) & 0xff));
  }
}

}  // namespace

absl::StatusOr<OfferedRun> RunRawOfferedLoad(const std::string& dir,
                                             const OfferedLoad& load,
                                             bool fsync) {
  absl::StatusOr<std::unique_ptr<RawDb>> db = RawDb::Create(dir);
  if (!db.ok()) return db.status();
  std::vector<std::string> prefixes;
  prefixes.reserve(load.streams);
  for (int i = 0; i < load.streams; ++i) {
    prefixes.push_back(StreamPrefix(BenchPersistenceId(i)));
  }
  WriteQueue queue;
  OfferedRun run;
  run.latencies_ms.reserve(static_cast<std::size_t>(load.streams) *
                           load.recorded_rounds);
  absl::Status failure;  // the writer's until it is joined
  std::thread writer([&] {
    rocksdb::WriteOptions options;
    options.sync = fsync;
    std::string key;
    std::string value;
    while (true) {
      const std::vector<Queued> events = queue.TakeAll();
      if (events.empty()) return;
      if (!failure.ok()) continue;  // drains the driver's sends
      rocksdb::WriteBatch batch;
      for (const Queued& event : events) {
        key = prefixes[event.stream];
        AppendBigEndian(event.sequence_nr, key);
        value.clear();
        AppendBigEndian(event.sequence_nr, value);
        if (rocksdb::Status put = batch.Put((*db)->events(), key, value);
            !put.ok()) {
          failure = RocksDbFailure(put, "building a batch");
          break;
        }
      }
      if (!failure.ok()) continue;
      if (rocksdb::Status written = (*db)->db().Write(options, &batch);
          !written.ok()) {
        failure = RocksDbFailure(written, "writing a batch");
        continue;
      }
      const Clock::time_point committed = Clock::now();
      for (const Queued& event : events) {
        if (!event.recorded) continue;
        run.latencies_ms.push_back(
            std::chrono::duration<double, std::milli>(committed - event.stamp)
                .count());
      }
    }
  });
  Clock::time_point recorded_start = Clock::now();
  DriveOpenLoop(
      load, [&] { recorded_start = Clock::now(); },
      [&](int stream, int round, Clock::time_point stamp) {
        queue.Push(Queued{.stream = stream,
                          .sequence_nr = round + 1,
                          .stamp = stamp,
                          .recorded = round >= load.warm_up_rounds});
      });
  queue.Close();
  writer.join();
  if (!failure.ok()) return failure;
  const double seconds =
      std::chrono::duration<double>(Clock::now() - recorded_start).count();
  run.events_per_second =
      static_cast<double>(run.latencies_ms.size()) / seconds;
  return run;
}

}  // namespace cairn::bench
