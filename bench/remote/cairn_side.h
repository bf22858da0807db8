#ifndef CAIRN_BENCH_REMOTE_CAIRN_SIDE_H_
#define CAIRN_BENCH_REMOTE_CAIRN_SIDE_H_

// cairn's side of remote_vs_caf: two actor systems with `provider =
// remote` on 127.0.0.1, one in the far side's process with /user/echo and
// /user/sink, one here with the pinging and sending actors. Messages are
// protobuf (remote_bench.proto), which cairn sends with no registration.

#include <memory>

#include "bench/remote/side.h"

namespace cairn::bench::remote {

// Starts the far side (--serve=cairn) and connects to it.
std::unique_ptr<Side> StartCairnSide();

// The far side's main: prints its system's address, serves until its
// stdin ends. The exit code.
int ServeCairn();

}  // namespace cairn::bench::remote

#endif  // CAIRN_BENCH_REMOTE_CAIRN_SIDE_H_
