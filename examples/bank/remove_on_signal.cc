#include "examples/bank/remove_on_signal.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

namespace cairn::examples::bank {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr unsigned char kStop = 0;  // not a signal number

// The write end of the pipe of the RemoveOnSignal that exists, or -1.
std::atomic<int> signal_pipe{-1};

void OnSignal(int signal) {
  const int saved = errno;  // async-signal-safe calls only from here
  const int fd = signal_pipe.load();
  if (fd >= 0) {
    const unsigned char byte = static_cast<unsigned char>(signal);
    [[maybe_unused]] ssize_t n = ::write(fd, &byte, 1);
  }
  errno = saved;
}

}  // namespace

RemoveOnSignal::RemoveOnSignal(std::string path) : path_(std::move(path)) {
  if (::pipe2(pipe_, O_CLOEXEC) != 0) {
    pipe_[0] = pipe_[1] = -1;
    return;  // signals end the process as usual, leaving `path` behind
  }
  int none = -1;
  if (!signal_pipe.compare_exchange_strong(none, pipe_[1])) {
    // Another one watches the signals: this one cannot.
    ::close(pipe_[0]);
    ::close(pipe_[1]);
    pipe_[0] = pipe_[1] = -1;
    return;
  }
  watcher_ = std::thread([this] { Watch(); });
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction action = {};
    action.sa_handler = OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(kSignals[i], nullptr, &previous_[i]);
    if (previous_[i].sa_handler != SIG_IGN) {
      ::sigaction(kSignals[i], &action, nullptr);
    }
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (!watcher_.joinable()) return;
  // Handlers first: a signal from now on acts as it did before, and one
  // that came earlier is in the pipe before kStop, so it is handled.
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  [[maybe_unused]] ssize_t n = ::write(pipe_[1], &kStop, 1);
  watcher_.join();
  signal_pipe.store(-1);
  ::close(pipe_[0]);
  ::close(pipe_[1]);
}

void RemoveOnSignal::Watch() {
  unsigned char byte = kStop;
  while (true) {
    const ssize_t n = ::read(pipe_[0], &byte, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return;
  }
  if (byte == kStop) return;
  const int signal = byte;
  // Files may still appear in it (the process runs on): try again then.
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::error_code error;
    std::filesystem::remove_all(path_, error);
    if (!error) break;
  }
  struct sigaction action = {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(signal, &action, nullptr);
  sigset_t just_this;
  sigemptyset(&just_this);
  sigaddset(&just_this, signal);
  ::pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
  ::raise(signal);
  ::_exit(128 + signal);  // not reached: the signal's default action ends it
}

}  // namespace cairn::examples::bank
