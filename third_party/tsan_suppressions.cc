// Debian's librocksdb and Abseil are not built with ThreadSanitizer, so TSan
// cannot see the atomics they synchronize with: RocksDB's memtable is a
// lock-free skip list (a read racing a write inside it looks like a data
// race) and absl::Status shares its payload through an atomic reference
// count (a Status copied to another thread and released there looks like a
// race on delete). Reports whose racing access is made inside those
// libraries are suppressed; races in cairn's own code are still reported.
// Linked into every binary that uses either library (see BUILD.bazel);
// without -fsanitize=thread nothing calls it.
extern "C" const char* __tsan_default_suppressions() {
  return "called_from_lib:librocksdb.so\n"
         "race:librocksdb.so\n"
         "called_from_lib:libabsl_status.so\n"
         // RocksDB decompresses blocks with snappy, whose accesses stay
         // visible while the library's own mutexes are suppressed above.
         "called_from_lib:libsnappy.so\n";
}
