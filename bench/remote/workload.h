#ifndef CAIRN_BENCH_REMOTE_WORKLOAD_H_
#define CAIRN_BENCH_REMOTE_WORKLOAD_H_

// What remote_vs_caf sends, the same for cairn and for CAF: the message
// size, one-way's flow control, the clock a ball is stamped with.

#include <chrono>
#include <cstdint>
#include <string>

namespace cairn::bench::remote {

// Each message carries this many bytes of payload (Akka's Artery figure is
// for 100-byte messages), besides its id and its send time.
inline constexpr int kPayloadBytes = 100;

// One-way sends batches of kBatch messages, each followed by a marker the
// far side answers with how many messages it has received; at most
// kWindowBatches are unanswered. The window (2,000 messages) keeps
// cairn's outbound queue (3,072 by default) from overflowing, where a
// message would be dropped as Akka's Artery drops it; CAF, whose queues
// are unbounded, gets the same window.
inline constexpr int kBatch = 500;
inline constexpr int kWindowBatches = 4;

// The payload every message carries.
inline std::string Payload() { return std::string(kPayloadBytes, 'x'); }

// The steady clock in nanoseconds: a ball's send time, read back by the
// process that stamped it when the ball returns.
inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace cairn::bench::remote

#endif  // CAIRN_BENCH_REMOTE_WORKLOAD_H_
