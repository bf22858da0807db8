#include "actor/internal/process_exit_hook.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace cairn::actor::internal {
namespace {

int pipe_fds[2] = {-1, -1};
std::atomic<bool> handling{false};

void OnSignal(int signal) {
  // Async-signal-safe only: a second signal while the first is being
  // handled, or with nobody to handle it, ends the process the usual way.
  if (handling.exchange(true)) {
    ::signal(signal, SIG_DFL);
    ::raise(signal);
    return;
  }
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(signal);
  [[maybe_unused]] ssize_t n = ::write(pipe_fds[1], &byte, 1);
  errno = saved;
}

}  // namespace

ProcessExitHook& ProcessExitHook::Get() {
  static ProcessExitHook* hook = new ProcessExitHook();
  return *hook;
}

int64_t ProcessExitHook::Register(std::function<void(int)> callback) {
  base::MutexLock lock(&mu_);
  if (!installed_) Install();
  int64_t token = next_token_++;
  callbacks_.emplace(token, std::move(callback));
  return token;
}

void ProcessExitHook::Unregister(int64_t token) {
  base::MutexLock lock(&mu_);
  callbacks_.erase(token);
}

void ProcessExitHook::Install() {
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return;  // no hook: signals kill
  installed_ = true;
  // Lives as long as the process (as does the hook, never destroyed): it
  // sleeps in read() until a signal.
  thread_ = std::thread([this] { Loop(); });
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
}

void ProcessExitHook::Loop() {
  while (true) {
    unsigned char byte = 0;
    ssize_t n = ::read(pipe_fds[0], &byte, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return;
    const int signal = byte;
    std::vector<std::function<void(int)>> callbacks;
    {
      base::MutexLock lock(&mu_);
      for (auto& [token, cb] : callbacks_) callbacks.push_back(cb);
    }
    if (callbacks.empty()) {
      ::signal(signal, SIG_DFL);
      ::raise(signal);
      continue;
    }
    for (auto& cb : callbacks) cb(signal);
  }
}

}  // namespace cairn::actor::internal
