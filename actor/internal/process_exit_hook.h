#ifndef CAIRN_ACTOR_INTERNAL_PROCESS_EXIT_HOOK_H_
#define CAIRN_ACTOR_INTERNAL_PROCESS_EXIT_HOOK_H_

#include <cstdint>
#include <functional>
#include <map>
#include <thread>

#include "base/mutex.h"

namespace cairn::actor::internal {

// Turns SIGTERM and SIGINT into calls of the registered callbacks (each
// actor system's coordinated shutdown). The signal handler only writes the
// signal number to a pipe; a thread of its own reads it and calls back, so
// callbacks may do anything. A signal that arrives when nothing is
// registered, or while a previous one is being handled, gets the default
// action (the process ends), so a second Ctrl-C always works.
//
// Thread safety: every method from any thread.
class ProcessExitHook {
 public:
  static ProcessExitHook& Get();

  // Installs the handlers on first use. Returns a token for Unregister.
  int64_t Register(std::function<void(int signal)> callback);
  void Unregister(int64_t token);

 private:
  ProcessExitHook() = default;
  void Install() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Loop();

  base::Mutex mu_;
  bool installed_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int64_t, std::function<void(int)>> callbacks_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace cairn::actor::internal

#endif  // CAIRN_ACTOR_INTERNAL_PROCESS_EXIT_HOOK_H_
