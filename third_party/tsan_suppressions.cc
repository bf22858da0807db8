// Debian's librocksdb and Abseil are not built with ThreadSanitizer, so TSan
// cannot see the atomics they synchronize with: RocksDB's memtable is a
// lock-free skip list (a read racing a write inside it looks like a data
// race) and absl::Status shares its payload through an atomic reference
// count (a Status copied to another thread and released there looks like a
// race on delete). Reports whose racing access is made inside those
// libraries are suppressed; races in cairn's own code are still reported.
// gRPC's callback API is part header (its templates, compiled into cairn
// with TSan) and part library (the completion queue that hands a started
// operation to a gRPC thread, which TSan does not see): a template's
// access on that thread racing one on the thread that started the
// operation is reported. Those are suppressed by their top frame being
// gRPC's own (race_top), and so are the accesses gRPC makes to a message
// it reads into or writes from (the wire's generated code, called by
// gRPC, or the protobuf library parsing and serializing for gRPC on
// whichever of its threads runs the operation). cairn's reactors tell TSan
// about the ordering gRPC gives them (remote/internal/tsan_handoff.h), so a
// race in their own code is still reported. CAF (Debian's libcaf_core and
// libcaf_io, only in the benchmarks that run cairn beside it) hands an
// actor and its messages from thread to thread with atomics its library
// hides in the same way: a report with a frame of CAF's (its templates,
// instantiated in the benchmark, the benchmark's handlers it calls) is
// suppressed, so TSan checks nothing on CAF's side of such a benchmark.
// For the same reason, a CAF actor's turns on different workers are not
// ordered for TSan: what it wrote in an early turn, read by the benchmark
// after its last (bench/remote's CafSide), is suppressed too.
// Linked into every binary that uses one of these libraries (see
// BUILD.bazel); without -fsanitize=thread nothing calls it.
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:librocksdb.so\n"
         "race:librocksdb.so\n"
         "called_from_lib:libabsl_status.so\n"
         // RocksDB decompresses blocks with snappy, whose accesses stay
         // visible while the library's own mutexes are suppressed above.
         "called_from_lib:libsnappy.so\n"
         "race_top:grpc::internal::\n"
         "race_top:cairn::remote::wire::\n"
         // gRPC's event engine (libgrpc) hands closures (Abseil's
         // AnyInvocable, whose inline code is compiled into cairn with
         // TSan) from a thread adding them to the pool's thread running
         // them, through synchronization TSan does not see.
         "race:grpc_event_engine::experimental::ThreadPool::Queue\n"
         "race:google::protobuf::internal::ParseContext\n"
         "race:google::protobuf::MessageLite::SerializeToZeroCopyStream\n"
         // When a peer dies (kill -9) with a stream open: the call's
         // status, a std::string assigned by gRPC's template on its thread
         // (top frame libstdc++'s), and the tasks of gRPC's event-engine
         // pool, absl::AnyInvocable's inlined code handed over by the
         // library's queue.
         "race:grpc::internal::CallOpClientRecvStatus::FinishOp\n"
         "race:grpc_event_engine::experimental::ThreadPool::Queue\n"
         // gRPC's own threads (its timer's "nexting_thread") may still be
         // finishing when a process exits; they are gRPC's to join, and a
         // thread of cairn's left behind is still reported.
         "thread:grpc_core::Thread::Thread\n"
         "race:caf::\n"
         "race:CafSide\n"
         "called_from_lib:libcaf_core.so\n"
         "called_from_lib:libcaf_io.so\n";
}
