#ifndef CAIRN_BENCH_REMOTE_CAF_SIDE_H_
#define CAIRN_BENCH_REMOTE_CAF_SIDE_H_

// CAF 0.17's side of remote_vs_caf (Debian's libcaf-dev, libcaf_io): the
// far side publishes an echo and a sink on two ports of 127.0.0.1 with
// CAF's middleman (BASP over TCP); this side reaches them by
// remote_actor. Messages are tuples (int64 id, int64 send time, string
// payload), which CAF serializes with no registration.

#include <memory>

#include "bench/remote/side.h"

namespace cairn::bench::remote {

// Starts the far side (--serve=caf) and connects to it.
std::unique_ptr<Side> StartCafSide();

// The far side's main: prints its two ports, serves until its stdin ends.
// The exit code.
int ServeCaf();

}  // namespace cairn::bench::remote

#endif  // CAIRN_BENCH_REMOTE_CAF_SIDE_H_
