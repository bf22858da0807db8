#ifndef CAIRN_BASE_USABLE_CPUS_H_
#define CAIRN_BASE_USABLE_CPUS_H_

namespace cairn::base {

// The CPUs the calling thread may run on (its affinity mask, which threads
// it starts inherit), at least 1: what the JVM's availableProcessors and
// .NET's Environment.ProcessorCount answer. Under `taskset -c 0` this is 1
// where std::thread::hardware_concurrency() still counts every CPU online,
// so a pool sized by it would run more threads than it has cores. Falls
// back to hardware_concurrency() if the mask cannot be read.
//
// Thread-safe.
int UsableCpus();

}  // namespace cairn::base

#endif  // CAIRN_BASE_USABLE_CPUS_H_
